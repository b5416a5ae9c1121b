/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cases of the 2-level upcall's KUnit suite (events_2l_kunit.c): each
 * a table of rounds, run in order on one fake domain, ended by an empty
 * round.  Every port starts bound to vCPU 0, unmasked and not pending;
 * cursors start at port 0.
 */

/*
 * Ports raised while the pass runs, in the start word on both sides of
 * the cursor and in words before and after it.
 */
static const struct evtchn_2l_test_round evtchn_2l_arrivals_during_pass[] = {
	{ .cursor = AT(130),
	  .on = { { .port = 140, .raise = "210,300,128" },
		  { .port = 5, .raise = "141" } },
	  .pend = "129,140,200,5",
	  .expect = "140,200,210,5,128,129,141,300",
	  .expect_cursor = { AT(301) }, .expect_pending = "" },
	{ }
};

/* A cursor on bit 0 of a word: the word is scanned whole, first. */
static const struct evtchn_2l_test_round evtchn_2l_cursor_bit0[] = {
	{ .cursor = AT(64), .pend = "0,63,64,65,127",
	  .expect = "64,65,127,0,63", .expect_cursor = { AT(64) } },
	{ }
};

/* A cursor on the last bit of a word. */
static const struct evtchn_2l_test_round evtchn_2l_cursor_bit63[] = {
	{ .cursor = AT(127), .pend = "64,100,127,128",
	  .expect = "127,128,64,100", .expect_cursor = { AT(101) } },
	{ }
};

/* Servicing the last port wraps the cursor to port 0. */
static const struct evtchn_2l_test_round evtchn_2l_cursor_last_port[] = {
	{ .cursor = AT(4095), .pend = "0,4094,4095",
	  .expect = "4095,0,4094", .expect_cursor = { AT(4095) } },
	{ .pend = "4095", .expect = "4095", .expect_cursor = { AT(0) } },
	{ }
};

/* No selector bit: nothing is serviced, the cursor stays. */
static const struct evtchn_2l_test_round evtchn_2l_empty_selector[] = {
	{ .cursor = AT(100), .expect = "", .expect_cursor = { AT(100) } },
	{ }
};

/* Every port pending, from port 0 and from the middle of a word. */
static const struct evtchn_2l_test_round evtchn_2l_every_port[] = {
	{ .pend = "0-4095", .expect = "0-4095", .expect_cursor = { AT(0) } },
	{ .cursor = AT(2000), .pend = "0-4095", .expect = "2000-4095,0-1999",
	  .expect_cursor = { AT(2000) }, .expect_pending = "" },
	{ }
};

/* Words 32-63 (ports 2048-4095), whose selector bits 32-bit Arm lost. */
static const struct evtchn_2l_test_round evtchn_2l_high_words[] = {
	{ .pend = "5,70,3000,4095", .expect = "5,70,3000,4095",
	  .expect_pending = "" },
	{ .cursor = AT(3001), .pend = "2048,3000,3001,4095",
	  .expect = "3001,4095,2048,3000", .expect_pending = "" },
	{ }
};

/* A low port re-raising itself does not delay the high ones. */
static const struct evtchn_2l_test_round evtchn_2l_low_flood_high_wait[] = {
	{ .on = { { .port = 3, .raise = "3", .times = 3 } },
	  .pend = "3,1000,2000,3000", .expect = "3,1000,2000,3000,3,3,3",
	  .expect_cursor = { AT(4) } },
	{ }
};

/* Masked ports stay pending until unmasked. */
static const struct evtchn_2l_test_round evtchn_2l_mask_unmask[] = {
	{ .mask = "10,11", .pend = "10-12", .expect = "12",
	  .expect_pending = "10,11", .expect_cursor = { AT(13) } },
	{ .unmask = "10", .expect = "10", .expect_pending = "11" },
	{ .mask = "12", .pend = "12", .unmask = "11,12", .expect = "11,12",
	  .expect_pending = "" },
	{ }
};

/*
 * Ports bound to another vCPU are left to it, even in a word this vCPU
 * scans; each vCPU has its own selector and cursor.
 */
static const struct evtchn_2l_test_round evtchn_2l_other_cpus[] = {
	{ .bind1 = "5,64-127", .pend = "1,5,2,70", .expect = "1,2",
	  .expect_pending = "5,70", .expect_cursor = { AT(3), AT(0) } },
	{ .vcpu = 1, .expect = "5,70", .expect_pending = "",
	  .expect_cursor = { AT(3), AT(71) } },
	{ }
};

/* A port re-raising itself is serviced once per pass. */
static const struct evtchn_2l_test_round evtchn_2l_self_flood[] = {
	{ .on = { { .port = 7, .raise = "7", .times = 5 } }, .pend = "7,9",
	  .expect = "7,9,7,7,7,7,7", .expect_cursor = { AT(8) } },
	{ }
};

/* Selector bits of words with no active port service nothing. */
static const struct evtchn_2l_test_round evtchn_2l_spurious_selector[] = {
	{ .selector = "5,17,63", .raw_pend = "70", .expect = "",
	  .expect_pending = "70", .expect_cursor = { AT(0) } },
	{ .selector = "1", .expect = "70", .expect_cursor = { AT(71) },
	  .expect_pending = "" },
	{ }
};

/*
 * The start word in two parts: from the cursor up first, below it last;
 * no port twice in one pass.
 */
static const struct evtchn_2l_test_round evtchn_2l_start_word_split[] = {
	{ .cursor = AT(130), .pend = "128-131,191,10,300",
	  .expect = "130,131,191,300,10,128,129", .expect_cursor = { AT(130) } },
	/*
	 * 128, raised below the cursor while the pass is above it, is
	 * serviced in the same pass; 131, raised above it after the pass
	 * left it, waits for the next.
	 */
	{ .pend = "129,131",
	  .on = { { .port = 131, .raise = "128" },
		  { .port = 129, .raise = "131" } },
	  .expect = "131,128,129,131", .expect_cursor = { AT(132) } },
	/*
	 * A port above the cursor raised again by its own handler waits
	 * for the next pass: 500, raised at the same time, comes first.
	 */
	{ .cursor = AT(130), .on = { { .port = 131, .raise = "131,500" } },
	  .pend = "131", .expect = "131,500,131", .expect_cursor = { AT(132) } },
	{ }
};

/* A VIRQ_TIMER port alone, on either vCPU, does not move the cursor. */
static const struct evtchn_2l_test_round evtchn_2l_timer_alone[] = {
	{ .timer = { AT(33) }, .cursor = AT(500), .pend = "33", .expect = "33",
	  .expect_cursor = { AT(500) } },
	{ .timer = { 0, AT(34) }, .bind1 = "34", .pend = "34,600",
	  .expect = "600", .expect_cursor = { AT(601) },
	  .expect_pending = "34" },
	{ .vcpu = 1, .expect = "34", .expect_cursor = { 0, AT(0) } },
	/* Raised again by its handler, it is serviced by the scan too. */
	{ .on = { { .port = 33, .raise = "33" } }, .pend = "33",
	  .expect = "33,33", .expect_cursor = { AT(34) } },
	{ }
};

/* The VIRQ_TIMER port first, unless masked. */
static const struct evtchn_2l_test_round evtchn_2l_timer_first[] = {
	{ .timer = { AT(200) }, .cursor = AT(10), .pend = "20,200,5",
	  .expect = "200,20,5", .expect_cursor = { AT(6) } },
	{ .pend = "200", .expect = "200", .expect_cursor = { AT(6) } },
	{ .mask = "200", .pend = "200,30", .expect = "30",
	  .expect_pending = "200" },
	/* In the upper half of a 64-bit word. */
	{ .timer = { AT(40) }, .cursor = AT(10), .pend = "20,40",
	  .expect = "40,20" },
	{ }
};

/* 32-bit event words (32-bit x86). */
static const struct evtchn_2l_test_round evtchn_2l_words32[] = {
	{ .cursor = AT(500), .pend = "0,31,32,500,1023",
	  .expect = "500,1023,0,31,32", .expect_cursor = { AT(33) } },
	{ .pend = "0-1023", .expect = "33-1023,0-32",
	  .expect_cursor = { AT(33) } },
	{ }
};

static const struct evtchn_2l_test_case evtchn_2l_cases[] = {
	{ "arrivals_during_pass", 64, evtchn_2l_arrivals_during_pass },
	{ "cursor_bit0", 64, evtchn_2l_cursor_bit0 },
	{ "cursor_bit63", 64, evtchn_2l_cursor_bit63 },
	{ "cursor_last_port", 64, evtchn_2l_cursor_last_port },
	{ "empty_selector", 64, evtchn_2l_empty_selector },
	{ "every_port", 64, evtchn_2l_every_port },
	{ "high_words", 64, evtchn_2l_high_words },
	{ "low_flood_high_wait", 64, evtchn_2l_low_flood_high_wait },
	{ "mask_unmask", 64, evtchn_2l_mask_unmask },
	{ "other_cpus", 64, evtchn_2l_other_cpus },
	{ "self_flood", 64, evtchn_2l_self_flood },
	{ "spurious_selector", 64, evtchn_2l_spurious_selector },
	{ "start_word_split", 64, evtchn_2l_start_word_split },
	{ "timer_alone", 64, evtchn_2l_timer_alone },
	{ "timer_first", 64, evtchn_2l_timer_first },
	{ "words32", 32, evtchn_2l_words32 },
};
