// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit list [--json] [-p PID] [-P PROVIDER[:NAME]]... [-r] [FILE...]
 * Every probe site with its placement and decoded arguments. A file with
 * no probes prints nothing on stdout and a note on stderr (exit 0);
 * errors exit 1. Filters are -P options, never positional: a mistyped
 * file name must be reported, not taken as a filter that matches nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"

/* -P PROVIDER[:NAME]: globs, NULL or "" for any */
struct filter {
	char *buf;		/* owns provider and name */
	const char *provider, *name;
};

struct list_opts {
	bool json;
	bool recursive;		/* -r: walk the directories among FILEs */
	bool all;		/* --all: every process with probes */
	int pid;		/* -p, or the process --all lists now */
	struct filter *filters;
	size_t nfilters;
	struct jw *out;		/* all of stdout goes through this buffer */
};

/* What a semaphore of a live process holds (list -p only). */
struct sema_state {
	bool have;		/* the site has a semaphore and a process */
	int err;		/* 0: value is valid, else an errno */
	unsigned value;
};

/* Library warnings, counted: when an open fails, the library has
 * usually said why already, and one line per error is enough. */
static void print_msg(void *ctx, enum usdtkit_log_level level, const char *msg)
{
	unsigned *warned = ctx;

	if (level != USDTKIT_LOG_WARN)
		return;
	fprintf(stderr, "usdtkit list: %s\n", msg);
	(*warned)++;
}

static void site_json(struct jw *w, const struct list_opts *o,
		      const struct usdtkit_file *f,
		      const struct usdtkit_site *s, const struct usdtkit_proc *p,
		      const uint64_t *abs_pc, const struct sema_state *sem)
{
	const char *spec = usdtkit_site_args_text(s);
	const char *fname = usdtkit_file_name(f);
	int i, n = usdtkit_site_arg_count(s);

	JW_OPEN(w, JSON_SCHEMA_LIST);
	JW_LIT(w, ",\"file\":");
	json_str(w, fname, strlen(fname));
	JW_LIT(w, ",\"arch\":\"");
	json_raw(w, usdtkit_arch_name(usdtkit_file_arch(f)));
	JW_LIT(w, "\",\"provider\":");
	json_str(w, usdtkit_site_provider(s), strlen(usdtkit_site_provider(s)));
	JW_LIT(w, ",\"name\":");
	json_str(w, usdtkit_site_name(s), strlen(usdtkit_site_name(s)));
	JW_LIT(w, ",\"pc\":");
	json_num_u64(w, usdtkit_site_pc(s));
	JW_LIT(w, ",\"pc_offset\":");
	json_num_u64(w, usdtkit_site_pc_offset(s));
	JW_LIT(w, ",\"base\":");
	json_num_u64(w, usdtkit_site_base(s));
	JW_LIT(w, ",\"semaphore\":");
	json_num_u64(w, usdtkit_site_semaphore(s));
	JW_LIT(w, ",\"semaphore_offset\":");
	json_num_u64(w, usdtkit_site_semaphore_offset(s));
	/* a new field, only with -p: the others keep their names */
	if (sem->have && !sem->err) {
		JW_LIT(w, ",\"semaphore_value\":");
		json_num_u64(w, sem->value);
	} else if (sem->have) {
		JW_LIT(w, ",\"semaphore_error\":");
		json_str(w, strerror(sem->err), strlen(strerror(sem->err)));
	}
	if (usdtkit_site_nop5_offset(s)) {
		JW_LIT(w, ",\"nop5_offset\":");
		json_num_u64(w, usdtkit_site_nop5_offset(s));
	}
	/* a site of a process always names it; its address when it has one */
	if (p) {
		const char *comm = usdtkit_proc_comm(p);

		JW_LIT(w, ",\"pid\":");
		json_i64(w, o->pid);
		JW_LIT(w, ",\"comm\":");
		json_str_bytes(w, comm, strlen(comm));
	}
	if (abs_pc) {
		JW_LIT(w, ",\"abs_pc\":");
		json_num_u64(w, *abs_pc);
	}
	if (usdtkit_site_status(s)) {
		JW_LIT(w, ",\"error\":");
		json_str(w, usdtkit_site_error(s), strlen(usdtkit_site_error(s)));
	}
	JW_LIT(w, ",\"args_text\":");
	json_str(w, spec, strlen(spec));
	JW_LIT(w, ",\"args\":[");
	for (i = 0; i < n; i++) {
		if (i)
			jw_putc(w, ',');
		json_arg(w, usdtkit_file_arch(f), spec, usdtkit_site_arg(s, i), i);
	}
	jw_putc(w, ']');
	/* arguments past USDTKIT_SITE_MAX_ARGS were counted, not decoded */
	if (usdtkit_site_arg_total(s) > n) {
		JW_LIT(w, ",\"args_total\":");
		json_i64(w, usdtkit_site_arg_total(s));
		JW_LIT(w, ",\"args_truncated\":true");
	}
	JW_LIT(w, "}\n");
}

static void jw_str(struct jw *w, const char *s)
{
	jw_text(w, s, strlen(s));
}

/* "0x..." and a label before it */
static void jw_hex_field(struct jw *w, const char *label, uint64_t v)
{
	jw_str(w, label);
	jw_hex(w, v);
}

/* The text table goes through the same buffer as JSON: printf per field
 * is most of the time of a big list. */
static void site_text(struct jw *w, const struct list_opts *o,
		      const struct usdtkit_file *f, const struct usdtkit_site *s,
		      const struct usdtkit_proc *p, const uint64_t *abs_pc,
		      const struct sema_state *sem)
{
	const char *spec = usdtkit_site_args_text(s);
	int i, n = usdtkit_site_arg_count(s);
	char buf[512];

	jw_str(w, usdtkit_site_provider(s));
	jw_putc(w, ':');
	jw_str(w, usdtkit_site_name(s));
	JW_LIT(w, "  ");
	jw_str(w, usdtkit_file_name(f));
	jw_hex_field(w, "  pc ", usdtkit_site_pc(s));
	jw_hex_field(w, " (file offset ", usdtkit_site_pc_offset(s));
	jw_putc(w, ')');
	if (abs_pc || p) {
		const char *comm = p ? usdtkit_proc_comm(p) : "";

		JW_LIT(w, "  pid ");
		json_i64(w, o->pid);
		if (*comm) {
			jw_putc(w, ' ');
			jw_text_quoted(w, comm, strlen(comm));
		}
	}
	if (abs_pc)
		jw_hex_field(w, " at ", *abs_pc);
	if (usdtkit_site_semaphore(s)) {
		jw_hex_field(w, "  semaphore ", usdtkit_site_semaphore(s));
		jw_hex_field(w, " (file offset ", usdtkit_site_semaphore_offset(s));
		jw_putc(w, ')');
		if (sem->have && !sem->err) {
			JW_LIT(w, " = ");
			json_i64(w, sem->value);
			if (sem->value)
				JW_LIT(w, " (active)");
			else
				JW_LIT(w, " (inactive)");
		} else if (sem->have) {
			JW_LIT(w, " = ? (");
			jw_str(w, strerror(sem->err));
			jw_putc(w, ')');
		}
	}
	if (usdtkit_site_nop5_offset(s))
		jw_hex_field(w, "  nop5 at file offset ", usdtkit_site_nop5_offset(s));
	if (usdtkit_site_status(s)) {
		JW_LIT(w, "  [cannot attach: ");
		jw_str(w, usdtkit_site_error(s));
		jw_putc(w, ']');
	}
	jw_putc(w, '\n');
	for (i = 0; i < n; i++) {
		const struct usdtkit_arg *a = usdtkit_site_arg(s, i);

		usdtkit_arg_snprintf(buf, sizeof(buf), usdtkit_file_arch(f), spec, a);
		JW_LIT(w, "    [");
		json_i64(w, i);
		JW_LIT(w, "] ");
		jw_text(w, spec + a->text_off, a->text_len);
		/* pad the operand text to 24 columns */
		for (size_t k = a->text_len; k < 24; k++)
			jw_putc(w, ' ');
		jw_putc(w, ' ');
		jw_str(w, buf);
		jw_putc(w, '\n');
	}
	if (usdtkit_site_arg_total(s) > n) {
		JW_LIT(w, "    [");
		json_i64(w, n);
		JW_LIT(w, "..");
		json_i64(w, usdtkit_site_arg_total(s) - 1);
		JW_LIT(w, "] not decoded: ");
		json_i64(w, usdtkit_site_arg_total(s));
		JW_LIT(w, " arguments, only the first ");
		json_i64(w, n);
		JW_LIT(w, " are\n");
	}
}

/* -P: a site passes when any filter matches it (all, without -P) */
static bool site_wanted(const struct list_opts *o, const struct usdtkit_site *s)
{
	size_t i;

	if (!o->nfilters)
		return true;
	for (i = 0; i < o->nfilters; i++)
		if (usdtkit_site_match(s, o->filters[i].provider, o->filters[i].name))
			return true;
	return false;
}

/* The semaphore of @s in process @p (list -p only). A tracer raises it
 * (the kernel's ref_ctr_offset, or a debugger writing it); the program
 * evaluates the probe's arguments only while it is not 0. */
static void sema_read(const struct usdtkit_proc *p, const struct usdtkit_site *s,
		      struct sema_state *st)
{
	uint16_t v = 0;
	int err;

	memset(st, 0, sizeof(*st));
	if (!p || !usdtkit_site_semaphore(s))
		return;
	st->have = true;
	err = usdtkit_proc_semaphore(p, s, &v);
	st->err = -err;
	st->value = v;
}

/* Print the sites of @f (an object of @p with -p PID, else @p is NULL)
 * that pass the filters; returns how many. */
static size_t list_sites(const struct list_opts *o, const struct usdtkit_file *f,
			 const struct usdtkit_proc *p)
{
	const struct usdtkit_site *s = NULL;
	struct sema_state sem = { 0 };
	size_t n = 0;

	while ((s = usdtkit_file_next_site(f, s, NULL, NULL))) {
		uint64_t abs, *absp = NULL;

		if (!site_wanted(o, s))
			continue;
		if (p && usdtkit_proc_site_addr(p, s, &abs) == 0)
			absp = &abs;
		sema_read(p, s, &sem);
		if (o->json)
			site_json(o->out, o, f, s, p, absp, &sem);
		else
			site_text(o->out, o, f, s, p, absp, &sem);
		n++;
	}
	/* keep stdout in order with the notes that go to stderr */
	jw_flush(o->out);
	return n;
}

/*
 * The probe of @f nearest an exact -P filter (no glob, both parts), the
 * library's guess at a typo, into @near; *@best carries the distance
 * over several objects. True when @near was set.
 */
static bool nearest_probe(const struct list_opts *o, const struct usdtkit_file *f,
			  char *near, size_t len, size_t *best)
{
	bool found = false;
	size_t i;

	for (i = 0; i < o->nfilters; i++) {
		const char *prov = o->filters[i].provider, *name = o->filters[i].name;

		if (!prov || !*prov || !name || !*name || strpbrk(prov, "*?[") ||
		    strpbrk(name, "*?["))
			continue;
		found |= usdtkit_file_nearest_probe(f, prov, name, near, len, best);
	}
	return found;
}

/* "WHERE: no probe matches", and the nearest probe when one is near
 * (a name from a file: escaped) */
static void no_match(const char *where, const char *what, bool guess, const char *near)
{
	char line[1024];

	snprintf(line, sizeof(line), "usdtkit list: %s: %s%s%s%s", where, what,
		 guess ? " (did you mean " : "", guess ? near : "", guess ? "?)" : "");
	put_text_line(stderr, line);
}

/* Open @path; NULL after one line on stderr naming it and the reason. */
static struct usdtkit_file *open_reported(const char *path)
{
	unsigned warned = 0;
	USDTKIT_OPTS(usdtkit_open_opts, oo, .print = print_msg,
		     .print_ctx = &warned);
	struct usdtkit_file *f;
	struct stat st;

	/* "list app 'fix:gate*'": an old positional filter, or a missing
	 * file; either way a missing file, and the hint says how to filter */
	if (strpbrk(path, ":*?[") && lstat(path, &st) && errno == ENOENT) {
		fprintf(stderr, "usdtkit list: %s: %s (a PROVIDER[:NAME] filter "
			"is -P '%s')\n", path, strerror(ENOENT), path);
		return NULL;
	}
	f = usdtkit_file_open(path, &oo);
	if (!f && !warned)
		fprintf(stderr, "usdtkit list: %s: %s\n", path, strerror(errno));
	return f;
}

static int list_path(const struct list_opts *o, const char *path)
{
	struct usdtkit_file *f = open_reported(path);
	size_t best = (size_t)-1;
	char near[512];

	if (!f)
		return EXIT_BAD_INPUT;
	if (!usdtkit_file_site_count(f))
		fprintf(stderr, "usdtkit list: %s: no USDT probes\n", path);
	else if (!list_sites(o, f, NULL) && o->nfilters)
		no_match(path, "no probe matches",
			 nearest_probe(o, f, near, sizeof(near), &best), near);
	usdtkit_file_close(f);
	return EXIT_OK;
}

/* ---- -r DIR ---- */

struct walk {
	const struct list_opts *o;
	size_t sites;		/* printed under the top directory */
	int rc;
	/* the directories from the top one down to here: a bind mount of
	 * an ancestor below itself must not send the walk round forever */
	struct { dev_t dev; ino_t ino; } stack[256];
	int depth;
};

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 if @path starts with the ELF magic, 0 if not (or is shorter), -errno
 * when it cannot be read: that is the one failure -r reports. */
static int is_elf(const char *path)
{
	unsigned char m[SELFMAG];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, m, sizeof(m));
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	return n == SELFMAG && !memcmp(m, ELFMAG, SELFMAG);
}

static void walk_file(struct walk *w, const char *path)
{
	struct usdtkit_file *f;
	int elf = is_elf(path);

	if (elf < 0) {
		fprintf(stderr, "usdtkit list: %s: %s\n", path, strerror(-elf));
		w->rc = EXIT_BAD_INPUT;
		return;
	}
	if (!elf)
		return;		/* scripts, data: not what -r looks for */
	f = open_reported(path);
	if (!f) {
		w->rc = EXIT_BAD_INPUT;
		return;
	}
	/* no "no USDT probes" per file: most files of a tree have none */
	w->sites += list_sites(w->o, f, NULL);
	usdtkit_file_close(f);
}

/*
 * Walk @dir in byte order of the names, so two runs print the same list.
 * Symbolic links are not followed, to files or to directories: a library
 * and its soname links are listed once, and no link can make a loop.
 */
static void walk_dir(struct walk *w, const char *dir, const struct stat *dst)
{
	char **names = NULL, *path;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int k;

	for (k = 0; k < w->depth; k++)
		if (w->stack[k].dev == dst->st_dev && w->stack[k].ino == dst->st_ino)
			return;		/* seen on the way here */
	if (w->depth == (int)(sizeof(w->stack) / sizeof(w->stack[0]))) {
		fprintf(stderr, "usdtkit list: %s: more than %d directories deep\n",
			dir, w->depth);
		w->rc = EXIT_BAD_INPUT;
		return;
	}
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "usdtkit list: %s: %s\n", dir, strerror(errno));
		w->rc = EXIT_BAD_INPUT;
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			char **tmp = realloc(names, (cap = cap ? 2 * cap : 64) *
					     sizeof(*names));
			if (!tmp)
				break;
			names = tmp;
		}
		names[n] = strdup(de->d_name);
		if (!names[n])
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	w->stack[w->depth].dev = dst->st_dev;
	w->stack[w->depth].ino = dst->st_ino;
	w->depth++;
	for (i = 0; i < n; i++) {
		bool slash = dir[strlen(dir) - 1] == '/';

		if (asprintf(&path, "%s%s%s", dir, slash ? "" : "/", names[i]) < 0)
			break;
		if (lstat(path, &st)) {
			/* gone since readdir(): not an error of the tree */
			if (errno != ENOENT) {
				fprintf(stderr, "usdtkit list: %s: %s\n", path,
					strerror(errno));
				w->rc = EXIT_BAD_INPUT;
			}
		} else if (S_ISDIR(st.st_mode)) {
			walk_dir(w, path, &st);
		} else if (S_ISREG(st.st_mode)) {
			walk_file(w, path);
		}
		free(path);
	}
	w->depth--;
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int list_tree(const struct list_opts *o, const char *path)
{
	struct walk *w;
	struct stat st;
	int rc;

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return list_path(o, path);	/* a file among the dirs */
	w = calloc(1, sizeof(*w));
	if (!w)
		return EXIT_BAD_INPUT;
	w->o = o;
	walk_dir(w, path, &st);
	if (!w->sites && !w->rc)
		fprintf(stderr, "usdtkit list: %s: no USDT probes%s\n", path,
			o->nfilters ? " match" : "");
	rc = w->rc;
	free(w);
	return rc;
}

/* ---- -p PID ---- */

static int list_pid(struct list_opts *o)
{
	unsigned warned = 0;
	USDTKIT_OPTS(usdtkit_open_opts, oo, .print = print_msg,
		     .print_ctx = &warned);
	struct usdtkit_proc *p = usdtkit_proc_open(o->pid, &oo);
	size_t i, n = 0, best = (size_t)-1;
	char near[512], where[32];
	bool guess = false;

	if (!p) {
		/* once is enough: the library may have said it */
		if (!warned)
			fprintf(stderr, "usdtkit list: pid %d: %s\n", o->pid, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	for (i = 0; i < usdtkit_proc_object_count(p); i++)
		n += list_sites(o, usdtkit_proc_object(p, i), p);
	for (i = 0; !n && i < usdtkit_proc_object_count(p); i++)
		guess |= nearest_probe(o, usdtkit_proc_object(p, i), near, sizeof(near), &best);
	snprintf(where, sizeof(where), "pid %d", o->pid);
	if (!n)
		no_match(where, o->nfilters ? "no USDT probes match" : "no USDT probes",
			 guess, near);
	usdtkit_proc_close(p);
	return EXIT_OK;
}

/* ---- --all ---- */

static int list_all(struct list_opts *o)
{
	unsigned warned = 0;
	USDTKIT_OPTS(usdtkit_host_opts, ho, .print = print_msg, .print_ctx = &warned);
	struct usdtkit_host *h = usdtkit_host_open(&ho);
	struct usdtkit_proc *p;
	size_t i, n = 0;

	if (!h) {
		fprintf(stderr, "usdtkit list: /proc: %s\n", strerror(errno));
		return EXIT_BAD_INPUT;
	}
	while ((p = usdtkit_host_next(h))) {
		o->pid = usdtkit_proc_pid(p);
		for (i = 0; i < usdtkit_proc_object_count(p); i++)
			n += list_sites(o, usdtkit_proc_object(p, i), p);
		usdtkit_proc_close(p);
	}
	if (errno)
		fprintf(stderr, "usdtkit list: /proc: %s\n", strerror(errno));
	if (!n)
		fprintf(stderr, "usdtkit list: no process maps a USDT probe%s\n",
			o->nfilters ? " that matches" : "");
	usdtkit_host_close(h);
	return EXIT_OK;
}

/* ---- options ---- */

static const struct cli_opt list_options[] = {
	{ 'j', 0, "json", NULL, "one JSON object per site" },
	{ 'p', 'p', "pid", "PID[,PID...]", "every object mapped by PID, with addresses and semaphore values (repeatable)" },
	{ 'a', 0, "all", NULL, "every process of the host that maps a probe (as -p does each)" },
	{ 'P', 'P', "probe", "PROVIDER[:NAME]", "only these probes (shell globs; repeatable)" },
	{ 'r', 'r', "recursive", NULL, "walk the directories among FILE (ELF files only)" },
	{ 'h', 'h', "help", NULL, "print this help and exit" },
	{ 0 }
};

const struct cli_cmd cli_cmd_list = {
	.name = "list",
	.fn = cmd_list,
	.summary = "list the USDT probes of ELF files or a process",
	.synopsis = "[--json] [-p PID[,PID...]... | --all] [-P PROVIDER[:NAME]]... [-r] [FILE...]",
	.description =
		"  List USDT probe sites of ELF files (any architecture) or of\n"
		"  every object mapped by process PID, with the value of each\n"
		"  semaphore in that process (several: -p 1,2 -p 3, each in turn);\n"
		"  with --all, of every process of the host that maps one. -P selects probes by shell globs\n"
		"  (\"-P 'libc:*'\", \"-P :setjmp\"); a site is listed when any -P\n"
		"  matches. With -r, a directory FILE is walked in name order;\n"
		"  symbolic links are not followed and files that are not ELF\n"
		"  are skipped.\n",
	.opts = list_options,
	.operand = "file",
};

/* "prov:name", "prov", ":name" -> globs; "" and "*" match anything */
static int add_filter(struct list_opts *o, const char *arg)
{
	struct filter *fl = realloc(o->filters, (o->nfilters + 1) * sizeof(*fl));
	char *colon;

	if (!fl)
		return -ENOMEM;
	o->filters = fl;
	fl = &o->filters[o->nfilters];
	fl->buf = strdup(arg);
	if (!fl->buf)
		return -ENOMEM;
	fl->name = NULL;
	colon = strchr(fl->buf, ':');
	if (colon) {
		*colon = 0;
		fl->name = colon + 1;
	}
	fl->provider = fl->buf;
	o->nfilters++;
	return 0;
}

static void free_filters(struct list_opts *o)
{
	size_t i;

	for (i = 0; i < o->nfilters; i++)
		free(o->filters[i].buf);
	free(o->filters);
}

int cmd_list(int argc, char **argv)
{
	const struct cli_cmd *c = &cli_cmd_list;
	struct list_opts o = { 0 };
	struct cli_pids pids = { 0 };
	struct cli_parser p;
	size_t k;
	int i, key, nfiles = 0, rc = EXIT_OK;
	char **files;

	files = calloc((size_t)argc, sizeof(*files));
	if (!files)
		return EXIT_BAD_INPUT;
	cli_parser_init(&p, c, argc, argv);
	while ((key = cli_next(&p)) != CLI_END) {
		switch (key) {
		case CLI_ERROR:
			goto usage;
		case CLI_OPERAND:
			files[nfiles++] = (char *)p.val;
			break;
		case 'j':
			o.json = true;
			break;
		case 'r':
			o.recursive = true;
			break;
		case 'a':
			o.all = true;
			break;
		case 'p':
			/* repeated, or PID,PID...: each listed, in turn */
			if (!cli_parse_pids(c, p.val, &pids))
				goto usage;
			o.pid = pids.v[0];
			break;
		case 'P':
			if (add_filter(&o, p.val)) {
				rc = EXIT_BAD_INPUT;
				goto out;
			}
			break;
		case 'h':
			cli_print_help(stdout, c);
			goto out;
		}
	}
	if (o.all && o.pid) {
		cli_usage_err(c, "-p and --all: one or the other");
		goto usage;
	}
	if (!nfiles && !o.pid && !o.all) {
		cli_usage_err(c, "no FILE, no -p PID and no --all");
		goto usage;
	}
	o.out = malloc(sizeof(*o.out));
	if (!o.out) {
		rc = EXIT_BAD_INPUT;
		goto out;
	}
	jw_init(o.out, stdout);
	/* a pid gone is said and the others listed (exit 1) */
	for (k = 0; k < pids.n; k++) {
		o.pid = pids.v[k];
		if (list_pid(&o))
			rc = EXIT_BAD_INPUT;
	}
	if (o.all && list_all(&o))
		rc = EXIT_BAD_INPUT;
	for (i = 0; i < nfiles; i++)
		if ((o.recursive ? list_tree(&o, files[i]) : list_path(&o, files[i])))
			rc = EXIT_BAD_INPUT;
	free(o.out);
	if (!cli_stdout_ok(c))
		rc = EXIT_BAD_INPUT;
out:
	cli_pids_free(&pids);
	free_filters(&o);
	free(files);
	return rc;
usage:
	cli_pids_free(&pids);
	free_filters(&o);
	free(files);
	return EXIT_USAGE;
}
