/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Xen 2-level event channel ABI: round-robin scan of pending ports.
 *
 * The 2-level ABI gives each vCPU a selector word whose bit W says that
 * word W of shared_info->evtchn_pending[] may hold pending ports.  The
 * scan below visits those words starting at a per-CPU cursor, so that
 * each active port is serviced at most once per pass and a pass resumes
 * right after the port serviced last.
 *
 * The functions here are pure: the selector snapshot, the way to read a
 * word's active bits, the cursor and the per-port service callback are
 * all passed in, so the same code runs in the upcall, in the KUnit suite
 * (drivers/xen/events/tests/) and in the userspace replay tool
 * (tools/testing/xen-evtchn/).
 *
 * xen_ulong_t may be wider than unsigned long (32-bit Arm), so word and
 * bit arithmetic is done in xen_ulong_t and never with BITS_PER_LONG.
 */
#ifndef __EVENTS_2L_SCAN_H__
#define __EVENTS_2L_SCAN_H__

#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/types.h>

#include <xen/interface/xen.h>
#include <xen/interface/event_channel.h>

/* Bits per word of the 2-level bitmaps: each word is a xen_ulong_t. */
#define BITS_PER_EVTCHN_WORD (sizeof(xen_ulong_t) * 8)

/**
 * struct evtchn_2l_cursor - where the next scan on one CPU starts
 * @port: the first port the next pass considers, in the range
 *        [0, word_bits * word_bits).
 *
 * Each CPU that handles events owns one cursor.  Only evtchn_2l_scan()
 * moves it: after each service it points at the port after the one
 * just serviced, wrapping to 0 after the last port.
 */
struct evtchn_2l_cursor {
	unsigned int port;
};

/**
 * typedef evtchn_2l_active_fn - read the active ports of one word
 * @word: index of the word in the 2-level pending bitmap.
 * @data: the caller's context, as passed to evtchn_2l_scan().
 *
 * Return: the bits of ports in @word that are pending, not masked and
 * bound to the scanning CPU; bit B stands for port @word * word_bits + B.
 */
typedef xen_ulong_t (*evtchn_2l_active_fn)(unsigned int word, void *data);

/**
 * typedef evtchn_2l_service_fn - service one active port
 * @port: the port to service.
 * @data: the caller's context, as passed to evtchn_2l_scan().
 */
typedef void (*evtchn_2l_service_fn)(evtchn_port_t port, void *data);

/* All bits of a word at and above @bit (@bit < word width). */
static __always_inline xen_ulong_t evtchn_2l_bits_from(unsigned int bit)
{
	return ~(xen_ulong_t)0 << bit;
}

static __always_inline xen_ulong_t evtchn_2l_bit(unsigned int bit)
{
	return (xen_ulong_t)1 << bit;
}

/**
 * evtchn_2l_nr_ports() - number of ports for a word width
 * @word_bits: bits per event word (BITS_PER_EVTCHN_WORD in the kernel).
 *
 * Return: @word_bits * @word_bits, the number of ports the 2-level ABI
 * can address with words of that width.
 */
static __always_inline unsigned int evtchn_2l_nr_ports(unsigned int word_bits)
{
	return word_bits * word_bits;
}

/**
 * evtchn_2l_port_active() - test whether one port is active
 * @port: the port.
 * @word_bits: bits per event word.
 * @active: reads a word's active bits.
 * @data: context for @active.
 *
 * Return: true if @port is pending, unmasked and bound to this CPU,
 * according to @active.
 */
static __always_inline bool evtchn_2l_port_active(evtchn_port_t port,
						  unsigned int word_bits,
						  evtchn_2l_active_fn active,
						  void *data)
{
	return active(port / word_bits, data) &
	       evtchn_2l_bit(port % word_bits);
}

/*
 * One visit of a word: read its active bits once and service those of
 * @considered in increasing order, moving the cursor after each.
 */
static __always_inline void evtchn_2l_scan_word(unsigned int word,
						xen_ulong_t considered,
						unsigned int word_bits,
						struct evtchn_2l_cursor *cursor,
						evtchn_2l_active_fn active,
						evtchn_2l_service_fn service,
						void *data)
{
	xen_ulong_t bits = active(word, data) & considered;

	while (bits) {
		evtchn_port_t port = word * word_bits + __ffs64(bits);

		bits &= bits - 1;
		service(port, data);
		cursor->port = port + 1 < evtchn_2l_nr_ports(word_bits) ?
			       port + 1 : 0;
	}
}

/*
 * Visit the words of @words in increasing order, all bits considered.
 */
static __always_inline void evtchn_2l_scan_words(xen_ulong_t words,
						 unsigned int word_bits,
						 struct evtchn_2l_cursor *cursor,
						 evtchn_2l_active_fn active,
						 evtchn_2l_service_fn service,
						 void *data)
{
	while (words) {
		unsigned int word = __ffs64(words);

		words &= words - 1;
		evtchn_2l_scan_word(word, ~(xen_ulong_t)0, word_bits, cursor,
				    active, service, data);
	}
}

/**
 * evtchn_2l_scan() - service the active ports of a selector snapshot
 * @pending_words: the selector snapshot (the vCPU's evtchn_pending_sel,
 *                 already exchanged with 0 by the caller).
 * @word_bits: bits per event word (BITS_PER_EVTCHN_WORD in the kernel);
 *             ports are numbered word * @word_bits + bit.
 * @cursor: this CPU's cursor, read at the start and moved after each
 *          service.
 * @active: reads the active bits of a word.
 * @service: services one port.
 * @data: context passed to @active and @service.
 *
 * Let the cursor be word W0, bit B0.  The pass visits, in this order,
 * each word whose bit is set in @pending_words: W0 considering bits
 * B0 and above; then W0 + 1, W0 + 2, ... wrapping past the last word,
 * all bits; last, W0 again considering only the bits below B0 (no
 * final visit when B0 is 0).  Each visit reads the word's active bits
 * once and services the considered ones in increasing order.
 *
 * So each port is serviced at most once per pass, and a port that is
 * active when the pass reaches its word is serviced in this pass.  A
 * port that becomes pending in a word the pass has already left raises
 * the selector again and is left for the next pass.
 *
 * Context: the caller must keep @cursor private to this CPU for the
 * duration of the pass (the upcall runs with interrupts disabled).
 */
static __always_inline void evtchn_2l_scan(xen_ulong_t pending_words,
					   unsigned int word_bits,
					   struct evtchn_2l_cursor *cursor,
					   evtchn_2l_active_fn active,
					   evtchn_2l_service_fn service,
					   void *data)
{
	unsigned int start_word, start_bit;
	xen_ulong_t start;

	if (!pending_words)
		return;

	start_word = cursor->port / word_bits;
	start_bit = cursor->port % word_bits;
	start = pending_words & evtchn_2l_bit(start_word);

	if (start)
		evtchn_2l_scan_word(start_word, evtchn_2l_bits_from(start_bit),
				    word_bits, cursor, active, service, data);

	/* The words after the start word, then those before it. */
	evtchn_2l_scan_words(pending_words &
			     (evtchn_2l_bits_from(start_word) << 1),
			     word_bits, cursor, active, service, data);
	evtchn_2l_scan_words(pending_words & ~evtchn_2l_bits_from(start_word),
			     word_bits, cursor, active, service, data);

	if (start && start_bit)
		evtchn_2l_scan_word(start_word, ~evtchn_2l_bits_from(start_bit),
				    word_bits, cursor, active, service, data);
}

/* "No VIRQ_TIMER port" for evtchn_2l_pass(). */
#define EVTCHN_2L_NO_PORT	((evtchn_port_t)~0U)

/**
 * typedef evtchn_2l_take_fn - take the selector word of the scanning vCPU
 * @data: the caller's context, as passed to evtchn_2l_pass().
 *
 * Return: the vCPU's evtchn_pending_sel, exchanged with 0 atomically
 * (after the upcall-pending flag was cleared: the exchange must order
 * the two).
 */
typedef xen_ulong_t (*evtchn_2l_take_fn)(void *data);

/**
 * evtchn_2l_pass() - one pass of the 2-level upcall on one CPU
 * @timer_port: the CPU's VIRQ_TIMER port, or EVTCHN_2L_NO_PORT.
 * @word_bits: bits per event word (BITS_PER_EVTCHN_WORD in the kernel).
 * @cursor: this CPU's cursor.
 * @take: takes the vCPU's selector word.
 * @active: reads the active bits of a word.
 * @service_timer: services @timer_port.
 * @service: services one port found by the scan.
 * @data: context passed to the callbacks.
 *
 * The timer interrupt has the highest priority: if @timer_port is
 * active, @service_timer services it first, and the cursor does not
 * move.  Then the selector is taken and evtchn_2l_scan() services the
 * active ports of the words it names.  The caller clears the vCPU's
 * upcall-pending flag before each pass and repeats passes until it
 * stays clear.  The kernel's evtchn_2l_handle_events() is this pass with
 * the hypervisor's shared_info and the vCPU's vcpu_info behind the
 * callbacks; the KUnit suite and the userspace tools call it on models.
 *
 * Context: as evtchn_2l_scan().
 */
static __always_inline void evtchn_2l_pass(evtchn_port_t timer_port,
					   unsigned int word_bits,
					   struct evtchn_2l_cursor *cursor,
					   evtchn_2l_take_fn take,
					   evtchn_2l_active_fn active,
					   evtchn_2l_service_fn service_timer,
					   evtchn_2l_service_fn service,
					   void *data)
{
	if (timer_port != EVTCHN_2L_NO_PORT &&
	    evtchn_2l_port_active(timer_port, word_bits, active, data))
		service_timer(timer_port, data);

	evtchn_2l_scan(take(data), word_bits, cursor, active, service, data);
}

#endif /* __EVENTS_2L_SCAN_H__ */
