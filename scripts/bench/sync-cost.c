/* What one group commit's WAL write and sync cost the kernel on this machine (docs/PERFORMANCE.md):
   N cycles of one pwrite of F frames of 4 120 bytes (a WAL frame with its header) into FILE, which
   is preallocated and reused from its start every 20 MiB as a WAL that starts over is, then a sync
   (fsync, fdatasync, or none), then a pause of 300 µs so that the device is idle again, as between
   two groups. Prints the CPU a cycle (user and system) and the context switches a cycle (the pause
   is one of them). Compare MODE none with the others: what is left is the sync's own cost.

       gcc -O2 -Wall -o /tmp/sync-cost scripts/bench/sync-cost.c
       /tmp/sync-cost .build-release/sync-cost.bin fsync 27 3000; /tmp/sync-cost .build-release/sync-cost.bin none 27 3000

   Put FILE on the file system the database lives on; it is removed at the end. */
#define _GNU_SOURCE
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
        fprintf(stderr, "usage: %s FILE fsync|fdatasync|none FRAMES CYCLES\n", argv[0]);
        return 2;
    }
    const char *mode = argv[2];
    int sync = strcmp(mode, "fsync") == 0 ? 1 : strcmp(mode, "fdatasync") == 0 ? 2 : strcmp(mode, "none") == 0 ? 0 : -1;
    long frames = atol(argv[3]), cycles = atol(argv[4]);
    const off_t logBytes = 20L << 20;
    if (sync < 0 || frames < 1 || cycles < 1 || frames * 4120L > logBytes) {
        fprintf(stderr, "sync-cost: MODE is fsync, fdatasync or none; FRAMES and CYCLES positive, a cycle at most 20 MiB\n");
        return 2;
    }
    int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) { perror("sync-cost: open"); return 1; }

    size_t cycleBytes = (size_t)frames * 4120;
    char *buffer = malloc(cycleBytes);
    char *zeros = calloc(1, 1 << 20);
    if (!buffer || !zeros) { fprintf(stderr, "sync-cost: out of memory\n"); return 1; }
    memset(buffer, 'x', cycleBytes);
    for (off_t offset = 0; offset < logBytes + (off_t)cycleBytes; offset += 1 << 20) {
        if (pwrite(fd, zeros, 1 << 20, offset) != 1 << 20) { perror("sync-cost: preallocate"); return 1; }
    }
    if (fsync(fd) != 0) { perror("sync-cost: fsync"); return 1; }

    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    off_t offset = 0;
    for (long cycle = 0; cycle < cycles; cycle++) {
        if (offset + (off_t)cycleBytes > logBytes) offset = 0;
        if (pwrite(fd, buffer, cycleBytes, offset) != (ssize_t)cycleBytes) { perror("sync-cost: pwrite"); return 1; }
        offset += cycleBytes;
        if ((sync == 1 && fsync(fd) != 0) || (sync == 2 && fdatasync(fd) != 0)) { perror("sync-cost: sync"); return 1; }
        usleep(300);
    }
    getrusage(RUSAGE_SELF, &after);
    printf("%-9s %3ld frames: user %.1f + system %.1f µs a cycle, %.2f voluntary and %.2f involuntary context switches\n",
           mode, frames,
           (microseconds(after.ru_utime) - microseconds(before.ru_utime)) / cycles,
           (microseconds(after.ru_stime) - microseconds(before.ru_stime)) / cycles,
           (double)(after.ru_nvcsw - before.ru_nvcsw) / cycles, (double)(after.ru_nivcsw - before.ru_nivcsw) / cycles);
    close(fd);
    unlink(argv[1]);
    return 0;
}
