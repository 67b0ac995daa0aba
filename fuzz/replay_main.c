// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A main() for the harnesses in builds without libFuzzer (gcc, the
 * normal and ASan builds): run LLVMFuzzerTestOneInput once on every file
 * given, or on every file of every directory given. A harness checks its
 * invariants by aborting, so a bad input fails the test; replaying no
 * input at all fails too.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	long size;

	if (!fp || fseek(fp, 0, SEEK_END) || (size = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET)) {
		perror(path);
		if (fp)
			fclose(fp);
		return -1;
	}
	/* exactly the input's size, so ASan sees any read past it */
	buf = malloc(size ? (size_t)size : 1);
	if (!buf || fread(buf, 1, (size_t)size, fp) != (size_t)size) {
		perror(path);
		fclose(fp);
		free(buf);
		return -1;
	}
	fclose(fp);
	LLVMFuzzerTestOneInput(buf, (size_t)size);
	free(buf);
	return 0;
}

static int replay_dir(const char *dir, unsigned long *n)
{
	struct dirent **ents;
	int k, m = scandir(dir, &ents, NULL, alphasort), err = 0;

	if (m < 0) {
		perror(dir);
		return -1;
	}
	for (k = 0; k < m; k++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[k]->d_name);
		if (ents[k]->d_name[0] != '.' && !stat(path, &st) &&
		    S_ISREG(st.st_mode)) {
			if (replay_file(path))
				err = -1;
			else
				(*n)++;
		}
		free(ents[k]);
	}
	free(ents);
	return err;
}

int main(int argc, char **argv)
{
	unsigned long n = 0;
	int i, failed = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			failed++;
		} else if (S_ISDIR(st.st_mode)) {
			failed += replay_dir(argv[i], &n) != 0;
		} else {
			failed += replay_file(argv[i]) != 0;
			n += 1;
		}
	}
	/* every input that returned passed its invariants */
	printf("%lu passed, %d failed\n", n, failed);
	return failed || !n;
}
