// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Destroy many links at once. Closing a BPF link waits for an RCU grace
 * period in the kernel (~50 ms for a uprobe_multi link on 6.18), one
 * after another when closed in turn: a tracer of 250 probes took 13.5 s
 * to exit. Closed from several threads the grace periods overlap.
 */
#include <pthread.h>
#include <stdint.h>

#include "attach/internal.h"

#define DESTROY_THREADS 256
/* small stacks: every thread must fit a 32-bit address space too */
#define DESTROY_STACK (64 * 1024)

struct destroy_job {
	struct usdtkit_link **links;
	size_t n, step, first;
};

static void *destroy_some(void *arg)
{
	const struct destroy_job *j = arg;
	size_t i;

	for (i = j->first; i < j->n; i += j->step)
		usdtkit_link_destroy(j->links[i]);
	return NULL;
}

void usdtkit_links_destroy(struct usdtkit_link **links, size_t n)
{
	struct destroy_job jobs[DESTROY_THREADS];
	pthread_t th[DESTROY_THREADS];
	size_t i, nth = n < DESTROY_THREADS ? n : DESTROY_THREADS, started = 0;
	pthread_attr_t at;

	if (!links || !n)
		return;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, DESTROY_STACK);
	for (i = 0; i < nth; i++) {
		jobs[i] = (struct destroy_job){ links, n, nth, i };
		if (nth > 1 && !pthread_create(&th[i], &at, destroy_some, &jobs[i]))
			started++;
		else
			break;
	}
	pthread_attr_destroy(&at);
	/* what no thread took (one link, or thread creation failed) */
	for (i = started; i < nth; i++) {
		jobs[i] = (struct destroy_job){ links, n, nth, i };
		destroy_some(&jobs[i]);
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}
