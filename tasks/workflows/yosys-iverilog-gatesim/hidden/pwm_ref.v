// Hidden reference of the yosys-iverilog-gatesim task: rtl/pwm.v with DIV = 3 (the build the task
// asks for) as the default of pwm_top, for the equivalence proof of the synthesised netlist.
// PWM generator: a prescaler divides clk by DIV into a one-cycle tick; a 4-bit phase counter steps
// on each tick; pwm is high while the phase is below the duty latched at the start of each period.
module prescaler #(parameter DIV = 4) (input clk, input rst, output tick);
  reg [3:0] cnt;
  assign tick = (cnt == DIV - 1);
  always @(posedge clk)
    if (rst || tick) cnt <= 4'd0;
    else cnt <= cnt + 4'd1;
endmodule

module pwm_core (input clk, input rst, input tick, input [3:0] duty, output pwm, output wrap);
  reg [3:0] phase;
  reg [3:0] duty_q;
  assign pwm = (phase < duty_q);
  assign wrap = tick && (phase == 4'd15);
  always @(posedge clk)
    if (rst) begin
      phase <= 4'd0;
      duty_q <= 4'd0;
    end else if (tick) begin
      phase <= phase + 4'd1;
      if (phase == 4'd15) duty_q <= duty;
    end
endmodule

module pwm_top #(parameter DIV = 3) (input clk, input rst, input [3:0] duty, output pwm, output wrap);
  wire tick;
  prescaler #(.DIV(DIV)) pre (.clk(clk), .rst(rst), .tick(tick));
  pwm_core core (.clk(clk), .rst(rst), .tick(tick), .duty(duty), .pwm(pwm), .wrap(wrap));
endmodule
