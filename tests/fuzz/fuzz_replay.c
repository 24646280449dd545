// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: `trigrec test` on a perf.data file. pdr_open_mem, then
 * triggers on the file's own tracepoints compiled against its formats
 * (latency by key, rate, a learned threshold, count with a comm condition;
 * each only when its events are in the file), replay_check, and
 * replay_run: the k-way merge, names from COMM/FORK records, every record
 * through the engine (src/replay/engine_host.c), the file given twice so
 * the duplicate test runs. Every firing must come from a record of the file.
 *
 *   make fuzz-build && .output/fuzz/fuzz_replay CORPUS_DIR...   (see make help)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capture/tracefs.h"
#include "replay/replay.h"

#define REQUIRE(c)                                                                           \
	do {                                                                                 \
		if (!(c)) {                                                                  \
			fprintf(stderr, "fuzz_replay: %s failed (line %d)\n", #c, __LINE__); \
			abort();                                                             \
		}                                                                            \
	} while (0)

static const char *const texts[] = {
	"latency raw_syscalls:sys_enter -> raw_syscalls:sys_exit by tid > 1us limit none",
	("latency sched:sched_wakeup by pid -> sched:sched_switch by next_pid > p50 after 2 "
	 "samples limit none"),
	"rate sched:sched_switch by prev_pid > 2/1ms post 1us limit none",
	"raw_syscalls:sys_exit if comm == \"trigwork\" || id == 121 count >= 3 cooldown 1us",
	"irq:irq_handler_entry if name ~ \"*e*\" max 3",
};

static const struct replay *cur;
static uint64_t nfired;

static void on_fire(const struct replay_fire *f, void *arg)
{
	REQUIRE(f->file >= 0 && f->file < cur->nr_files);
	REQUIRE(f->rec >= cur->files[f->file]->recs &&
		f->rec < cur->files[f->file]->recs + cur->files[f->file]->nr_recs);
	REQUIRE(f->m->m.time_ns == f->rec->time);
	REQUIRE(f->m->m.trigger_id < TRIGREC_MAX_TRIGGERS);
	nfired++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct trig_def defs[sizeof(texts) / sizeof(texts[0])];
	struct eh_opts o = { .ring_mode = 1 };
	struct replay *rp = replay_new();
	char err[1024];
	int n = 0;

	if (!rp)
		return 0;
	for (int k = 0; k < 2; k++) {
		struct pdr_file *f = pdr_open_mem(data, size, err, sizeof(err));

		if (!f) {
			REQUIRE(err[0] != 0);
			replay_close(rp);
			return 0;
		}
		if (replay_add(rp, f, k ? "b.data" : "a.data"))
			goto out;
	}
	trig_set_formats(rp->fmts, rp->nr_fmts);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct tl_error e;

		if (trig_from_text(texts[i], &defs[n], &e))
			continue;
		if (replay_check(rp, &defs[n], 1, NULL, err, sizeof(err))) {
			REQUIRE(err[0] != 0);
			continue;
		}
		n++;
	}
	cur = rp;
	nfired = 0;
	if (n) {
		REQUIRE(replay_run(rp, defs, n, &o, on_fire, NULL) == 0);
		REQUIRE(rp->evaluated + rp->duplicates <= 2 * rp->files[0]->nr_recs);
	}
out:
	trig_set_formats(NULL, 0);
	eh_free();
	replay_close(rp);
	return 0;
}
