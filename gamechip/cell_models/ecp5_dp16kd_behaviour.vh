// gamechip's behaviour for Yosys's DP16KD declaration (ECP5 block RAM), spliced by
// gamechip/gatelevel.py into the declaration of Yosys's ecp5/cells_sim.v, which declares the
// cell's ports and parameters but gives it no behaviour (a blackbox: its outputs float, and a
// netlist reading them simulates as X). The behaviour covers what gamechip's netlists use, a
// read-only memory: the two ports' synchronous reads (REGMODE "NOREG") at data widths 1, 2, 4,
// 9 and 18, on the clock's rising edge (falling with CLKAMUX/CLKBMUX "INV") while the clock enable
// is high. gamechip/gatelevel.py refuses a netlist whose DP16KD writes, registers its outputs,
// decodes chip selects or drives its output resets (RSTA/RSTB, read below only as a reset to 0):
// those parts are not modelled (docs/gatelevel.md, "What the cell models need").
//
// Content: INITVAL_00 .. INITVAL_3F hold 16 slots of 20 bits each, a slot holding one 18-bit
// word in its low 18 bits (1024 words, word 0 in the low slot of INITVAL_00), as Yosys's
// lattice/brams_map_16kd.v writes them. A narrower entry sits inside its word at the widths'
// places that skip the word's bits 8 and 17 (the 9-bit bytes' ninth bits): a 4-bit entry j of
// a word at bits 0, 4, 9, 13; a 9-bit entry at bits 0 and 9.
// The entry address is the port's address bits above the width's unused low bits: ADx13:ADx4 at
// width 18, ADx13:ADx3 at 9, ADx13:ADx2 at 4, ADx13:ADx1 at 2, ADx13:ADx0 at 1.
// Outputs are X until the first read, as the converted RTL's registered reads are.

	reg [17:0] gamechip_word [0:1023];
	reg [319:0] gamechip_row;
	integer gamechip_row_number, gamechip_slot;
	initial begin
		for (gamechip_row_number = 0; gamechip_row_number < 64; gamechip_row_number = gamechip_row_number + 1) begin
			case (gamechip_row_number)
			0: gamechip_row = INITVAL_00;
			1: gamechip_row = INITVAL_01;
			2: gamechip_row = INITVAL_02;
			3: gamechip_row = INITVAL_03;
			4: gamechip_row = INITVAL_04;
			5: gamechip_row = INITVAL_05;
			6: gamechip_row = INITVAL_06;
			7: gamechip_row = INITVAL_07;
			8: gamechip_row = INITVAL_08;
			9: gamechip_row = INITVAL_09;
			10: gamechip_row = INITVAL_0A;
			11: gamechip_row = INITVAL_0B;
			12: gamechip_row = INITVAL_0C;
			13: gamechip_row = INITVAL_0D;
			14: gamechip_row = INITVAL_0E;
			15: gamechip_row = INITVAL_0F;
			16: gamechip_row = INITVAL_10;
			17: gamechip_row = INITVAL_11;
			18: gamechip_row = INITVAL_12;
			19: gamechip_row = INITVAL_13;
			20: gamechip_row = INITVAL_14;
			21: gamechip_row = INITVAL_15;
			22: gamechip_row = INITVAL_16;
			23: gamechip_row = INITVAL_17;
			24: gamechip_row = INITVAL_18;
			25: gamechip_row = INITVAL_19;
			26: gamechip_row = INITVAL_1A;
			27: gamechip_row = INITVAL_1B;
			28: gamechip_row = INITVAL_1C;
			29: gamechip_row = INITVAL_1D;
			30: gamechip_row = INITVAL_1E;
			31: gamechip_row = INITVAL_1F;
			32: gamechip_row = INITVAL_20;
			33: gamechip_row = INITVAL_21;
			34: gamechip_row = INITVAL_22;
			35: gamechip_row = INITVAL_23;
			36: gamechip_row = INITVAL_24;
			37: gamechip_row = INITVAL_25;
			38: gamechip_row = INITVAL_26;
			39: gamechip_row = INITVAL_27;
			40: gamechip_row = INITVAL_28;
			41: gamechip_row = INITVAL_29;
			42: gamechip_row = INITVAL_2A;
			43: gamechip_row = INITVAL_2B;
			44: gamechip_row = INITVAL_2C;
			45: gamechip_row = INITVAL_2D;
			46: gamechip_row = INITVAL_2E;
			47: gamechip_row = INITVAL_2F;
			48: gamechip_row = INITVAL_30;
			49: gamechip_row = INITVAL_31;
			50: gamechip_row = INITVAL_32;
			51: gamechip_row = INITVAL_33;
			52: gamechip_row = INITVAL_34;
			53: gamechip_row = INITVAL_35;
			54: gamechip_row = INITVAL_36;
			55: gamechip_row = INITVAL_37;
			56: gamechip_row = INITVAL_38;
			57: gamechip_row = INITVAL_39;
			58: gamechip_row = INITVAL_3A;
			59: gamechip_row = INITVAL_3B;
			60: gamechip_row = INITVAL_3C;
			61: gamechip_row = INITVAL_3D;
			62: gamechip_row = INITVAL_3E;
			63: gamechip_row = INITVAL_3F;
			endcase
			for (gamechip_slot = 0; gamechip_slot < 16; gamechip_slot = gamechip_slot + 1)
				gamechip_word[gamechip_row_number * 16 + gamechip_slot] = gamechip_row[gamechip_slot * 20 +: 18];
		end
	end

	// the entry of a port of ``width`` at ``address`` (the 14 address pins), in the low bits
	function [17:0] gamechip_read;
		input integer width;
		input [13:0] address;
		reg [17:0] word;
		integer entry, place, offset;
		begin
			case (width)
				18: entry = address[13:4];
				9: entry = address[13:3];
				4: entry = address[13:2];
				2: entry = address[13:1];
				default: entry = address;
			endcase
			place = width == 18 ? 0 : width == 9 ? entry % 2 : width == 4 ? entry % 4 : width == 2 ? entry % 8 : entry % 16;
			word = gamechip_word[width == 18 ? entry : width == 9 ? entry / 2 : width == 4 ? entry / 4 :
			                     width == 2 ? entry / 8 : entry / 16];
			offset = place * (width == 9 ? 9 : width) + (width < 9 && place * width >= 8 ? 1 : 0);
			gamechip_read = width == 18 ? word : width == 9 ? ((word >> offset) & 18'h1ff) :
			                ((word >> offset) & ((18'd1 << width) - 18'd1));
		end
	endfunction

	wire [13:0] gamechip_address_a = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
	wire [13:0] gamechip_address_b = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
	wire gamechip_clock_a = CLKAMUX == "INV" ? ~CLKA : CLKA;
	wire gamechip_clock_b = CLKBMUX == "INV" ? ~CLKB : CLKB;
	reg [17:0] gamechip_out_a, gamechip_out_b;

	always @(posedge gamechip_clock_a)
		if (CEA)
			gamechip_out_a <= RSTA ? 18'd0 : gamechip_read(DATA_WIDTH_A, gamechip_address_a);
	always @(posedge gamechip_clock_b)
		if (CEB)
			gamechip_out_b <= RSTB ? 18'd0 : gamechip_read(DATA_WIDTH_B, gamechip_address_b);

	assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = gamechip_out_a;
	assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = gamechip_out_b;
