/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rings=compact: what the BPF side writes of each format's records, as
 * bpfctl__plan() puts it into the hook's table (hook_cfg.cr_skip,
 * hook_cfg.cr_zz) and the decoder (snapshot/compact.h) reads it back.
 */
#ifndef TRIGREC_CRWORDS_H
#define TRIGREC_CRWORDS_H
#include <stdint.h>

struct tp_format;
/*
 * The words of a record of this format the BPF side leaves out (bit i:
 * record bytes 8 + 8i..16 + 8i), for the expansion to fill in: sched_switch's
 * prev_comm and next_comm (names by time, cr_fill_comms()). 0 for the rest.
 */
uint16_t cr_skip_words(const struct tp_format *f);
/*
 * The words of a record of this format that are one signed 8-byte field
 * each (bit i: word i, the first 8 words): written zigzagged, so that a
 * small negative value (sys_exit's -ESRCH) takes one byte, not eight.
 */
uint8_t cr_zz_words(const struct tp_format *f);

#endif
