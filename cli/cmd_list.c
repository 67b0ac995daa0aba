// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usdtkit list [--json] [-p PID] [FILE...] [PROVIDER[:NAME]]
 * Every probe site with its placement and decoded arguments. A file with
 * no probes prints nothing on stdout and a note on stderr (exit 0);
 * errors exit 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "json.h"

struct list_opts {
	bool json;
	int pid;
	const char *provider;	/* glob or NULL */
	const char *name;	/* glob or NULL */
	char *filter;		/* owns provider/name */
	struct jw *out;		/* all of stdout goes through this buffer */
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
		      const uint64_t *abs_pc)
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
	if (usdtkit_site_nop5_offset(s)) {
		JW_LIT(w, ",\"nop5_offset\":");
		json_num_u64(w, usdtkit_site_nop5_offset(s));
	}
	/* a site of a process always names it; its address when it has one */
	if (p) {
		JW_LIT(w, ",\"pid\":");
		json_i64(w, o->pid);
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
		      const struct usdtkit_proc *p, const uint64_t *abs_pc)
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
		JW_LIT(w, "  pid ");
		json_i64(w, o->pid);
	}
	if (abs_pc)
		jw_hex_field(w, " at ", *abs_pc);
	if (usdtkit_site_semaphore(s)) {
		jw_hex_field(w, "  semaphore ", usdtkit_site_semaphore(s));
		jw_hex_field(w, " (file offset ", usdtkit_site_semaphore_offset(s));
		jw_putc(w, ')');
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

/* Print the sites of @f that pass the filter; returns how many. */
static size_t list_sites(const struct list_opts *o, const struct usdtkit_file *f,
			 const struct usdtkit_proc *p)
{
	const struct usdtkit_site *s = NULL;
	size_t n = 0;

	while ((s = usdtkit_file_next_site(f, s, o->provider, o->name))) {
		uint64_t abs, *absp = NULL;

		if (p && usdtkit_proc_site_addr(p, s, &abs) == 0)
			absp = &abs;
		if (o->json)
			site_json(o->out, o, f, s, p, absp);
		else
			site_text(o->out, o, f, s, p, absp);
		n++;
	}
	/* keep stdout in order with the notes that go to stderr */
	jw_flush(o->out);
	return n;
}

static int list_path(const struct list_opts *o, const char *path)
{
	unsigned warned = 0;
	struct usdtkit_open_opts oo = { .sz = sizeof(oo), .print = print_msg,
					.print_ctx = &warned };
	struct usdtkit_file *f = usdtkit_file_open(path, &oo);

	if (!f) {
		if (!warned)
			fprintf(stderr, "usdtkit list: %s: %s\n", path, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	if (!usdtkit_file_site_count(f))
		fprintf(stderr, "usdtkit list: %s: no USDT probes\n", path);
	else if (!list_sites(o, f, NULL) && (o->provider || o->name))
		fprintf(stderr, "usdtkit list: %s: no probe matches\n", path);
	usdtkit_file_close(f);
	return EXIT_OK;
}

static int list_pid(const struct list_opts *o)
{
	unsigned warned = 0;
	struct usdtkit_open_opts oo = { .sz = sizeof(oo), .print = print_msg,
					.print_ctx = &warned };
	struct usdtkit_proc *p = usdtkit_proc_open(o->pid, &oo);
	size_t i, n = 0;

	if (!p) {
		fprintf(stderr, "usdtkit list: pid %d: %s\n", o->pid, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	for (i = 0; i < usdtkit_proc_object_count(p); i++)
		n += list_sites(o, usdtkit_proc_object(p, i), p);
	if (!n)
		fprintf(stderr, "usdtkit list: pid %d: no USDT probes%s\n", o->pid,
			o->provider || o->name ? " match" : "");
	usdtkit_proc_close(p);
	return EXIT_OK;
}

static void list_usage(FILE *f)
{
	fprintf(f,
		"usage: usdtkit list [--json] [-p PID] [FILE...] [PROVIDER[:NAME]]\n"
		"  List USDT probe sites of ELF files (any architecture) or of\n"
		"  every object mapped by process PID. PROVIDER and NAME are\n"
		"  shell globs.\n");
}

/* "prov:name", "prov", ":name" -> globs; "" and "*" match anything */
static int set_filter(struct list_opts *o, const char *arg)
{
	char *colon;

	o->filter = strdup(arg);
	if (!o->filter)
		return -ENOMEM;
	colon = strchr(o->filter, ':');
	if (colon) {
		*colon = 0;
		o->name = colon + 1;
	}
	o->provider = o->filter;
	return 0;
}

/*
 * A positional argument is a file if it looks like a path or if there is
 * something of that name: a dangling or looping symlink is a file whose
 * open fails (ELOOP, ENOENT), never a name filter.
 */
static bool is_file_arg(const char *a)
{
	struct stat st;

	return strchr(a, '/') || lstat(a, &st) == 0;
}

int cmd_list(int argc, char **argv)
{
	struct list_opts o = { 0 };
	int i, nfiles = 0, rc = EXIT_OK;
	char *end;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			o.json = true;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pid")) {
			if (++i >= argc)
				goto usage;
			o.pid = (int)strtol(argv[i], &end, 10);
			if (*end || o.pid <= 0) {
				fprintf(stderr, "usdtkit list: bad pid '%s'\n", argv[i]);
				goto usage;
			}
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			list_usage(stdout);
			return EXIT_OK;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "usdtkit list: unknown option %s\n", a);
			goto usage;
		} else if (is_file_arg(a)) {
			nfiles++;
		} else if (o.filter || i != argc - 1) {
			/* only the last argument can be PROVIDER[:NAME] */
			fprintf(stderr, "usdtkit list: %s: %s\n", a, strerror(ENOENT));
			rc = EXIT_BAD_INPUT;
		} else if (set_filter(&o, a)) {
			return EXIT_BAD_INPUT;
		}
	}
	if (!nfiles && !o.pid && o.filter) {
		/* a lone name that is not a file filters nothing: it was
		 * meant as a file, and that file is missing */
		fprintf(stderr, "usdtkit list: %s: %s\n", argv[argc - 1],
			strerror(ENOENT));
		free(o.filter);
		return EXIT_BAD_INPUT;
	}
	if (!nfiles && !o.pid)
		goto usage;
	o.out = malloc(sizeof(*o.out));
	if (!o.out) {
		free(o.filter);
		return EXIT_BAD_INPUT;
	}
	jw_init(o.out, stdout);
	if (o.pid && list_pid(&o))
		rc = EXIT_BAD_INPUT;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-p") || !strcmp(argv[i], "--pid")) {
			i++;
			continue;
		}
		if (argv[i][0] != '-' && is_file_arg(argv[i]) && list_path(&o, argv[i]))
			rc = EXIT_BAD_INPUT;
	}
	free(o.out);
	free(o.filter);
	return rc;
usage:
	list_usage(stderr);
	free(o.filter);
	return EXIT_USAGE;
}
