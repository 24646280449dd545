// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target: `trigrec test` on a perf.data file, given twice: once
 * opened as `trigrec show` opens it (pdr_open_mem, every record checked and
 * indexed), once as `trigrec test` does (PDR_STREAM: no index, compression
 * found on the way). Then triggers on the file's own tracepoints compiled
 * against its formats (latency by key, rate, a learned threshold, count
 * with a comm condition; each only when its events are in the file),
 * replay_check, and replay_run: pdr_next()'s one pass per file, the k-way
 * merge, the duplicate test, names from COMM/FORK records, every record
 * through the engine (src/replay/engine_host.c). The streaming reader must
 * accept what the index accepted (replay_run 0), and every firing must
 * come from a record of the file at its time.
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
static char err_idx[1024];
static uint64_t nfired;

static void on_fire(const struct replay_fire *f, void *arg)
{
	const struct pdr_file *pf;

	REQUIRE(f->file >= 0 && f->file < cur->nr_files);
	pf = cur->files[f->file];
	REQUIRE((const uint8_t *)f->rec->hdr >= pf->data &&
		(const uint8_t *)f->rec->hdr + f->rec->hdr->size <= pf->data + pf->data_len);
	REQUIRE(f->m->m.time_ns == f->rec->time);
	REQUIRE(f->m->m.trigger_id < TRIGREC_MAX_TRIGGERS);
	nfired++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct trig_def defs[sizeof(texts) / sizeof(texts[0])];
	struct eh_opts o = { .ring_mode = 1 };
	struct replay *rp = replay_new();
	/* show's reading: every record checked before anything is used */
	struct pdr_file *idx = pdr_open_mem(data, size, err_idx, sizeof(err_idx));
	char err[1024];
	int n = 0;

	if (!rp)
		goto out;
	for (int k = 0; k < 2; k++) {
		struct pdr_file *f = pdr_open_mem_flags(data, size, PDR_STREAM, err, sizeof(err));

		if (!f) {
			REQUIRE(err[0] != 0);
			REQUIRE(!idx); /* the header, attrs and features are read alike */
			goto out;
		}
		REQUIRE(!f->recs);
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
		int rc = replay_run(rp, defs, n, &o, on_fire, NULL);

		/* the stream stops at a damaged record exactly when the index refused the file */
		if (!rc != !!idx)
			fprintf(stderr, "fuzz_replay: stream: %s; index: %s\n", rc ? rp->err : "ok",
				idx ? "ok" : err_idx);
		REQUIRE(!rc == !!idx);
		REQUIRE(!rc || rp->err[0]);
		REQUIRE(!idx || rp->evaluated + rp->duplicates <= 2 * idx->nr_recs);
	}
out:
	trig_set_formats(NULL, 0);
	eh_free();
	replay_close(rp);
	pdr_close(idx);
	return 0;
}
