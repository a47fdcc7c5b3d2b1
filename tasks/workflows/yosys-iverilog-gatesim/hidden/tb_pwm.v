// Hidden testbench of the yosys-iverilog-gatesim task: never copied into the agent's sandboxes.
// Simulates the delivered gate-level netlist of pwm_top (built with DIV = 3) against a reference
// model and prints a FAIL line per mismatch (the first 10), then "RESULT passed/total". Inputs
// change on the falling edge; pwm and wrap are checked 1 ns after every falling edge.
`timescale 1ns / 1ps
module tb_pwm;
  reg clk = 1'b0;
  reg rst = 1'b0;
  reg [3:0] duty = 4'd0;
  wire pwm;
  wire wrap;

  pwm_top dut (.clk(clk), .rst(rst), .duty(duty), .pwm(pwm), .wrap(wrap));

  always #5 clk = ~clk;

  // Reference model of pwm_top with DIV = 3.
  reg [3:0] cnt, phase, duty_q;
  wire tick = (cnt == 4'd2);
  wire want_pwm = (phase < duty_q);
  wire want_wrap = tick && (phase == 4'd15);

  integer passed = 0;
  integer total = 0;
  integer failed = 0;
  integer highs = 0;

  task check;
    begin
      total = total + 1;
      if (pwm === want_pwm && wrap === want_wrap) passed = passed + 1;
      else begin
        failed = failed + 1;
        if (failed <= 10)
          $display("FAIL %0d: t=%0t rst=%b duty=%0d expected pwm=%b wrap=%b, got pwm=%b wrap=%b",
                   total, $time, rst, duty, want_pwm, want_wrap, pwm, wrap);
      end
      if (pwm === 1'b1) highs = highs + 1;
    end
  endtask

  // One clock with inputs (r, d): set them after the falling edge, check, then step the model.
  task cycle(input r, input [3:0] d);
    begin
      @(negedge clk);
      rst = r;
      duty = d;
      #1 if (cnt !== 4'bx) check;
      @(posedge clk);
      if (r) begin
        cnt = 0; phase = 0; duty_q = 0;
      end else begin
        if (tick && phase == 4'd15) duty_q = d;
        if (tick) phase = phase + 4'd1;
        cnt = tick ? 4'd0 : cnt + 4'd1;
      end
    end
  endtask

  integer i;
  initial begin
    cnt = 4'bx; phase = 4'bx; duty_q = 4'bx;
    cycle(1, 0);
    cycle(1, 9);                                   // reset holds whatever duty says
    for (i = 0; i < 60; i = i + 1) cycle(0, 5);    // first period runs at duty 0, then 5 latched
    for (i = 0; i < 100; i = i + 1) cycle(0, 12);  // mid-period change waits for the wrap
    for (i = 0; i < 60; i = i + 1) cycle(0, i[3:0]); // duty changes every clock
    for (i = 0; i < 50; i = i + 1) cycle(0, 15);
    cycle(1, 15);                                  // synchronous reset mid-period
    for (i = 0; i < 110; i = i + 1) cycle(0, 0);
    for (i = 0; i < 60; i = i + 1) cycle(0, 1);
    if (highs == 0) begin
      total = total + 1;
      $display("FAIL %0d: pwm never went high", total);
    end
    $display("RESULT %0d/%0d", passed, total);
    $finish;
  end

  initial begin
    #100000;
    $display("FAIL watchdog: simulation did not finish");
    $display("RESULT %0d/%0d", passed, total + 1);
    $finish;
  end
endmodule
