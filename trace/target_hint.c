// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit trace: a malformed TARGET told in one line that shows the right
 * form. The usual ones are a newcomer's: bpftrace's spelling
 * (usdt:PATH:PROVIDER:NAME, U:..., usdt:PATH:NAME), a PATH without its
 * PROVIDER:NAME, a PROVIDER:NAME without -p. All are the caller's fault
 * (-EINVAL, a usage error); a well-formed target whose file or probe is
 * missing is not one of them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace/internal.h"

/* bpftrace's probe type, as a TARGET copied from a script begins */
static const char *const bpftrace_types[] = { "usdt:", "U:" };

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* the bpftrace type @target begins with (its length in *@len), or NULL */
static const char *bpftrace_type(const char *target, size_t *len)
{
	size_t i;

	for (i = 0; i < sizeof(bpftrace_types) / sizeof(bpftrace_types[0]); i++) {
		*len = strlen(bpftrace_types[i]);
		if (!strncmp(target, bpftrace_types[i], *len))
			return bpftrace_types[i];
	}
	return NULL;
}

/*
 * usdt:PATH:PROVIDER:NAME -> PATH:PROVIDER:NAME; bpftrace's
 * usdt:PATH:NAME (any provider) -> PATH::NAME, our empty PROVIDER.
 * Only when the split finds a PATH and no file there: "usdt" may be a
 * file, and "U:NAME" a PROVIDER:NAME.
 */
static bool bpftrace_form(struct usdtkit_trace *t, const char *target, const char *path)
{
	const char *rest, *type, *colon;
	size_t len;

	type = bpftrace_type(target, &len);
	if (!type || !path || exists(path))
		return false;
	rest = target + len;
	colon = strchr(rest, ':');
	if (colon && !strchr(colon + 1, ':') && memchr(rest, '/', (size_t)(colon - rest))) {
		trace_err(t, "bad target '%s': usdtkit's form has no '%s' prefix, and "
			  "an empty PROVIDER matches any: %.*s::%s", target, type,
			  (int)(colon - rest), rest, colon + 1);
		return true;
	}
	trace_err(t, "bad target '%s': usdtkit's form has no '%s' prefix: %s", target,
		  type, rest);
	return true;
}

/*
 * A target split into @path (NULL: none), @prov and @name that cannot be
 * meant as it reads: -EINVAL after one line that shows the right form,
 * else 0 (and the target is looked for as it is).
 */
int usdtkit__target_form(struct usdtkit_trace *t, const char *target, const char *path,
			 const char *prov, const char *name)
{
	if (bpftrace_form(t, target, path))
		return -EINVAL;
	/* no provider has a '/': PATH:NAME, as bpftrace allows */
	if (!path && strchr(prov, '/')) {
		trace_err(t, "bad target '%s': want PATH:PROVIDER:NAME, an empty "
			  "PROVIDER matching any: %s::%s", target, prov, name);
		return -EINVAL;
	}
	/* a path may hold ':', but PROVIDER and NAME do not: one with a ':'
	 * that is no file has a ':' too many */
	if (path && strchr(path, ':') && !exists(path)) {
		trace_err(t, "bad target '%s': want PATH:PROVIDER:NAME, and there is "
			  "no file '%s' (PROVIDER and NAME hold no ':')", target, path);
		return -EINVAL;
	}
	return 0;
}

/* the program named as @prov in $PATH, when it has a probe @prov:@name
 * (NULL: none, or only a wrapper script) */
static char *program_with(const char *prov, const char *name)
{
	USDTKIT_OPTS(usdtkit_open_opts, oo);
	char *prog = usdtkit__cmd_resolve(prov);
	struct usdtkit_file *f = prog ? usdtkit_file_open(prog, &oo) : NULL;
	bool has = f && usdtkit_file_next_site(f, NULL, prov, *name ? name : NULL);

	usdtkit_file_close(f);
	if (!has) {
		free(prog);
		return NULL;
	}
	return prog;
}

/* PROVIDER:NAME with neither -p, -c nor --all: a program named as the
 * PROVIDER with that probe is the likely PATH (myapp:req ->
 * /usr/bin/myapp:myapp:req) */
static void provider_alone(struct usdtkit_trace *t, const char *target)
{
	const char *colon = strchr(target, ':');
	char *prov = colon > target ? strndup(target, (size_t)(colon - target)) : NULL;
	char *prog = prov ? program_with(prov, colon + 1) : NULL;

	trace_err(t, "bad target '%s': PROVIDER:NAME needs -p PID, -c CMD or --all; "
		  "else name the file: %s:%s", target, prog ? prog : "PATH", target);
	free(prog);
	free(prov);
}

/* a target with no ':' at all, or PROVIDER:NAME with neither -p, -c nor
 * --all: what it lacks, with the form it likely meant */
void usdtkit__target_form_bad(struct usdtkit_trace *t, const char *target)
{
	bool process = t->pid || t->cmd.path;

	if (!strchr(target, ':') && exists(target))
		trace_err(t, "bad target '%s': want PATH:PROVIDER:NAME; '%s::' is every "
			  "probe of it (usdtkit list %s names them)", target, target,
			  target);
	else if (!process && !t->all && strchr(target, ':') &&
		 strchr(target, ':') == strrchr(target, ':'))
		provider_alone(t, target);
	else
		trace_err(t, "bad target '%s': want PATH:PROVIDER:NAME%s", target,
			  process ? " or PROVIDER:NAME" :
			  " (or PROVIDER:NAME with -p PID, -c CMD or --all)");
}
