// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit_trace_attach(): every probe attached with cookie = its index +
 * 1 (a hit names its probe), all or none but the optional ones; then the
 * ring buffer, and the trace's clock. Detached all at once at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "trace/internal.h"
#include "trace.skel.h"

/* Attach probe @i; on failure, -errno and *@why: the reason, naming the
 * file, probe and argument when the library said which (malloc'ed). */
static int attach_one(struct usdtkit_trace *t, size_t i, char **why)
{
	struct probe *p = &t->probes[i];
	char *prov = usdtkit__glob_quote(p->provider), *name = usdtkit__glob_quote(p->name);
	char label[512];
	int err = 0;

	if (!prov || !name) {
		err = -ENOMEM;
		goto out;
	}
	t->capture = true;
	p->link = usdtkit__trace_link(t, i, p->path, prov, name, p->file);
	err = p->link ? 0 : -errno;
	t->capture = false;
	p->pub.link = p->link;
	if (p->link) {
		usdtkit__refresh_note(p);
		/* (+: several pids' links in other objects, late) */
		p->pub.sites += usdtkit_link_site_count(p->link);
		p->pub.mode = usdtkit_link_mode(p->link);
	}
	if (!p->link) {
		usdtkit__probe_label(p, label, sizeof(label));
		if (t->captured) {
			*why = t->captured;
			t->captured = NULL;
		} else if (asprintf(why, "%s: %s", label, strerror(-err)) < 0) {
			*why = NULL;
		}
		goto out;
	}
	/* warnings of a link that did attach are news, not a failure */
	if (t->captured) {
		trace_err(t, "%s", t->captured);
		free(t->captured);
		t->captured = NULL;
	}
	/* a probe whose sites differ (an int here, a long there) is fine:
	 * every hit carries the width and sign of the site that fired */
	usdtkit__info(&t->log, "%s:%s: %zu site(s), mode %s%s", p->provider, p->name,
		      p->pub.sites, usdtkit_mode_str(p->pub.mode),
		      p->pub.mixed ? ", sites differ in their arguments" : "");
out:
	free(prov);
	free(name);
	return err;
}

/* the reasons said for the probes that failed so far */
struct fails {
	char **why;		/* each said once */
	size_t said;
};

static bool said_before(const struct fails *fl, const char *why)
{
	size_t i;

	for (i = 0; why && i < fl->said; i++)
		if (fl->why[i] && !strcmp(fl->why[i], why))
			return true;
	return false;
}

static void fails_free(struct fails *fl)
{
	while (fl->said)
		free(fl->why[--fl->said]);
	free(fl->why);
}

/* a probe that failed: one line, with the attach layer's reason (said
 * once when a probe before failed for the same one: a whole file or
 * process refused); a probe named by a glob, not by the caller, leaves
 * the rest with best_effort (1), any other fails the trace (the error) */
static int attach_failed(struct usdtkit_trace *t, size_t i, int err, char *why,
			 struct fails *fl)
{
	const struct probe *p = &t->probes[i];
	char **v;

	if (said_before(fl, why)) {
		free(why);
		return p->pub.optional ? 1 : err;
	}
	if (p->pub.optional && t->best_effort)
		trace_err(t, "skipping %s:%s (%s)", p->provider, p->name,
			  why ? why : strerror(-err));
	else
		trace_err(t, "cannot attach: %s", why ? why : strerror(-err));
	v = realloc(fl->why, (fl->said + 1) * sizeof(*v));
	if (!v) {
		free(why);
		return -ENOMEM;
	}
	fl->why = v;
	fl->why[fl->said++] = why;
	return p->pub.optional ? 1 : err;
}

int usdtkit_trace_attach(struct usdtkit_trace *t)
{
	size_t i, attached = 0, skipped = 0, pending = 0, said;
	struct fails fl = { 0 };
	int err;

	if (!t->loaded || t->attached)
		return -EINVAL;
	/* the processes followed, before a probe can fire */
	err = usdtkit__children_start(t);
	if (!err)
		err = t->all ? usdtkit__all_start(t) : usdtkit__follow_start(t);
	if (err)
		return err;
	for (i = 0; i < t->nprobes; i++) {
		char *why = NULL;

		/* attached once an object has it; under --all, in every
		 * object that has it (all.c), at the start or later */
		if (t->probes[i].pending || t->all) {
			pending++;
			continue;
		}
		err = attach_one(t, i, &why);
		if (!err) {
			attached++;
			continue;
		}
		err = attach_failed(t, i, err, why, &fl);
		if (err < 0) {
			fails_free(&fl);
			return err;
		}
		skipped++;
	}
	usdtkit__follow_attached(t);
	usdtkit__trace_targets_release(t);
	said = fl.said;
	fails_free(&fl);
	if (skipped && !t->best_effort) {
		/* (several, none attached, all for one reason: its one line
		 * said it all) */
		if (attached || said > 1 || skipped == 1)
			trace_err(t, "%zu of %zu probes could not be attached "
				  "(--best-effort traces the others)", skipped,
				  t->nprobes);
		return -EOPNOTSUPP;
	}
	if (!attached && !pending) {
		trace_err(t, "no probe could be attached");
		return -ENOENT;
	}
	/* the trace starts once every target is attached: hits of the first
	 * targets while later ones were still attaching are dropped, so no
	 * caller sees one probe and not yet another */
	t->start_ns = clock_mono_ns();
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events),
				 usdtkit__on_event, t, NULL);
	if (!t->rb) {
		err = -errno;
		trace_err(t, "ring buffer: %s", strerror(-err));
		return err;
	}
	err = usdtkit__follow_fd(t, usdtkit__all_tick(t));
	if (err)
		return err;
	t->attached = true;
	return 0;
}

void usdtkit__trace_detach(struct usdtkit_trace *t)
{
	struct usdtkit_link **links;
	size_t i, j, n = t->nprobes, k = 0;

	usdtkit__refresh_release(t);
	for (i = 0; i < t->nprobes; i++)
		n += t->probes[i].nlate;
	/* links first (they hold entries of the program's maps), all at
	 * once: each waits for a kernel grace period */
	links = calloc(n ? n : 1, sizeof(*links));
	for (i = 0; i < t->nprobes; i++) {
		struct probe *p = &t->probes[i];

		for (j = 0; j <= p->nlate; j++) {
			struct usdtkit_link *l = j ? p->late[j - 1] : p->link;

			if (links)
				links[k++] = l;
			else
				usdtkit_link_destroy(l);
		}
		p->nlate = 0;
	}
	usdtkit_links_destroy(links, links ? k : 0);
	free(links);
}
