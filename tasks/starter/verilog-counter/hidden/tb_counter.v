// Hidden testbench of the verilog-counter task: never copied into the agent's sandbox.
// Drives counter(clk, rst, en, q, tc) against a reference model and prints one PASS/FAIL line per
// check, then "RESULT passed/total". Inputs change on the falling edge; q and tc are checked 1 ns
// after each falling edge (before the clock: a synchronous reset must not act yet, tc follows en)
// and 1 ns after each rising edge.
`timescale 1ns / 1ps
module tb_counter;
  reg clk = 1'b0;
  reg rst = 1'b0;
  reg en = 1'b0;
  wire [3:0] q;
  wire tc;

  counter dut (.clk(clk), .rst(rst), .en(en), .q(q), .tc(tc));

  always #5 clk = ~clk;

  reg [3:0] model;
  integer passed = 0;
  integer total = 0;

  task check;
    reg want_tc;
    begin
      want_tc = en && (model == 4'd9);
      total = total + 1;
      if (q === model && tc === want_tc) begin
        passed = passed + 1;
        $display("PASS %0d", total);
      end else
        $display("FAIL %0d: t=%0t rst=%b en=%b expected q=%0d tc=%b, got q=%0d tc=%b",
                 total, $time, rst, en, model, want_tc, q, tc);
    end
  endtask

  // One clock cycle with inputs (r, e): set them, check before the edge, clock, check after.
  task cycle(input r, input e);
    begin
      @(negedge clk);
      rst = r;
      en = e;
      #1 check;
      @(posedge clk);
      if (r) model = 4'd0;
      else if (e) model = (model == 4'd9) ? 4'd0 : model + 4'd1;
      #1 check;
    end
  endtask

  integer i;
  initial begin
    // Initial reset: q is unknown until the first edge, so only check after it. rst starts low and
    // rises here so that designs with an `always @*` next-state block see an event.
    @(negedge clk);
    rst = 1'b1;
    en = 1'b0;
    @(posedge clk);
    model = 4'd0;
    #1 check;
    cycle(1, 0);
    for (i = 0; i < 25; i = i + 1) cycle(0, 1);  // counts through 9 -> 0 twice, tc at 9
    for (i = 0; i < 4; i = i + 1) cycle(0, 0);   // holds with en low
    for (i = 0; i < 6; i = i + 1) begin          // en toggling
      cycle(0, 1);
      cycle(0, 0);
    end
    while (model != 4'd9) cycle(0, 1);           // reach 9, then hold: tc must follow en
    cycle(0, 0);
    cycle(0, 0);
    cycle(0, 1);                                 // 9 -> 0 wrap with en
    cycle(0, 1);
    cycle(0, 1);
    cycle(1, 1);                                 // reset wins over enable
    for (i = 0; i < 12; i = i + 1) cycle(0, 1);
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
