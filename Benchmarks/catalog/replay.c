/* The floor of a finished tree: every folder and file of an already built tree (SRC), held in memory, written again
 * under DST by 2 threads (mkdir; open O_CREAT|O_EXCL, write, close) and, when built with -DWITH_SHA256, hashed with
 * SHA-256 as the build hashes each file. Nothing is read, parsed, checked, rendered, validated or indexed: it is what
 * the build would cost if all of that were free. Usage: replay SRC DST */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef WITH_SHA256
#include <openssl/sha.h>
#endif

struct entry { char *path; char *bytes; size_t size; int isDirectory; };
static struct entry *entries;
static size_t count, capacity, srcLength, totalBytes;
static const char *destination;
static volatile unsigned char sink; /* keeps the hashing from being optimised away */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)ftw;
    if (strlen(path) == srcLength) return 0; /* the root itself */
    if (count == capacity) {
        capacity = capacity ? capacity * 2 : 1024;
        entries = realloc(entries, capacity * sizeof *entries);
    }
    struct entry *e = &entries[count++];
    e->path = strdup(path + srcLength);
    e->isDirectory = type == FTW_D;
    e->bytes = NULL; e->size = 0;
    if (type == FTW_F) {
        e->size = (size_t)st->st_size;
        e->bytes = malloc(e->size ? e->size : 1);
        int fd = open(path, O_RDONLY);
        if (fd < 0 || read(fd, e->bytes, e->size) != (ssize_t)e->size) { perror(path); exit(1); }
        close(fd);
        totalBytes += e->size;
    }
    return 0;
}

/* Each thread takes every other entry; the walk lists a folder before what it holds, and an entry whose folder the
 * other thread has not made yet waits for it by retrying. */
static void *work(void *arg) {
    char path[4096];
    for (size_t i = (size_t)arg; i < count; i += 2) {
        struct entry *e = &entries[i];
        snprintf(path, sizeof path, "%s%s", destination, e->path);
        if (e->isDirectory) {
            while (mkdir(path, 0755) != 0) {
                if (errno == ENOENT) continue; /* its parent belongs to the other thread */
                perror(path); exit(1);
            }
            continue;
        }
        int fd;
        while ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0) {
            if (errno == ENOENT) continue;
            perror(path); exit(1);
        }
        if (write(fd, e->bytes, e->size) != (ssize_t)e->size) { perror(path); exit(1); }
        close(fd);
#ifdef WITH_SHA256
        unsigned char digest[SHA256_DIGEST_LENGTH];
        SHA256((const unsigned char *)e->bytes, e->size, digest);
        sink ^= digest[0];
#endif
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: replay SRC DST\n"); return 2; }
    srcLength = strlen(argv[1]);
    destination = argv[2];
    if (nftw(argv[1], collect, 64, FTW_PHYS) != 0) { perror(argv[1]); return 1; }
    if (mkdir(destination, 0755) != 0) { perror(destination); return 1; }
    double start = now();
    pthread_t a, b;
    pthread_create(&a, NULL, work, (void *)0); pthread_create(&b, NULL, work, (void *)1);
    pthread_join(a, NULL); pthread_join(b, NULL);
    double wall = now() - start;
    size_t files = 0;
    for (size_t i = 0; i < count; i++) files += !entries[i].isDirectory;
    printf("%zu files (%zu bytes) and %zu folders written%s by 2 threads in %.2f s\n", files, totalBytes,
           count - files,
#ifdef WITH_SHA256
           " and hashed",
#else
           "",
#endif
           wall);
    return 0;
}
