/* What an append-only sign-in log would cost the kernel (docs/PERFORMANCE.md, "A sign-in log in
   front of the B-trees"): N groups of G records of R bytes, each group one pwrite and one fsync,
   into FILE, preallocated and synced first as a log that is reused would be. Prints the CPU a
   record (user and system) and the wall time a group.

       gcc -O2 -Wall -o /tmp/log-append scripts/bench/log-append.c
       /tmp/log-append .build-release/log-append.bin 13 200 5000; rm .build-release/log-append.bin

   Put FILE on the file system the database lives on. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double microseconds(struct timeval t) { return t.tv_sec * 1e6 + t.tv_usec; }

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s FILE RECORDS-A-GROUP RECORD-BYTES GROUPS\n", argv[0]);
        return 2;
    }
    long group = atol(argv[2]), record = atol(argv[3]), groups = atol(argv[4]);
    if (group < 1 || record < 1 || groups < 1 || group * record > (64L << 20)) {
        fprintf(stderr, "log-append: counts must be positive, and a group at most 64 MiB\n");
        return 2;
    }
    int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) { perror("log-append: open"); return 1; }

    size_t groupBytes = (size_t)(group * record);
    char *buffer = malloc(groupBytes);
    char *zeros = calloc(1, 1 << 20);
    if (!buffer || !zeros) { fprintf(stderr, "log-append: out of memory\n"); return 1; }
    memset(buffer, 'x', groupBytes);
    off_t total = (off_t)groupBytes * groups;
    for (off_t offset = 0; offset < total; offset += 1 << 20) {
        if (pwrite(fd, zeros, 1 << 20, offset) != 1 << 20) { perror("log-append: preallocate"); return 1; }
    }
    if (fsync(fd) != 0) { perror("log-append: fsync"); return 1; }

    struct rusage before, after;
    struct timespec start, end;
    getrusage(RUSAGE_SELF, &before);
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long index = 0; index < groups; index++) {
        if (pwrite(fd, buffer, groupBytes, (off_t)groupBytes * index) != (ssize_t)groupBytes) {
            perror("log-append: pwrite");
            return 1;
        }
        if (fsync(fd) != 0) { perror("log-append: fsync"); return 1; }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    getrusage(RUSAGE_SELF, &after);

    double records = (double)group * groups;
    double wall = (end.tv_sec - start.tv_sec) * 1e6 + (end.tv_nsec - start.tv_nsec) / 1e3;
    printf("%ld records of %ld bytes a group: %.2f µs user + %.2f µs system a record; %.0f µs a group (wall)\n",
           group, record, (microseconds(after.ru_utime) - microseconds(before.ru_utime)) / records,
           (microseconds(after.ru_stime) - microseconds(before.ru_stime)) / records, wall / groups);
    close(fd);
    return 0;
}
