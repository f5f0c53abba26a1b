/* The file-system floor of a tree like ours: N folders, each with one file of SIZE bytes, created by 2 threads
 * (mkdir, open O_CREAT|O_EXCL, write, close), no other work. What the compiler's product pages cost the kernel
 * alone; compare with Benchmarks/catalog/run.sh. Usage: floor ROOT N SIZE */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *root;
static int count;
static char *buffer;
static size_t size;

static void *work(void *arg) {
    char path[4096];
    for (int i = (int)(long)arg; i < count; i += 2) {
        snprintf(path, sizeof path, "%s/products/%d", root, i);
        if (mkdir(path, 0755) != 0) { perror(path); exit(1); }
        strcat(path, "/details.json");
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0 || write(fd, buffer, size) != (ssize_t)size) { perror(path); exit(1); }
        close(fd);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: floor ROOT N SIZE\n"); return 2; }
    root = argv[1]; count = atoi(argv[2]); size = (size_t)atol(argv[3]);
    buffer = malloc(size); memset(buffer, 'x', size);
    char path[4096];
    snprintf(path, sizeof path, "%s/products", root);
    if (mkdir(root, 0755) != 0 || mkdir(path, 0755) != 0) { perror(root); return 1; }
    pthread_t a, b;
    pthread_create(&a, NULL, work, (void *)0); pthread_create(&b, NULL, work, (void *)1);
    pthread_join(a, NULL); pthread_join(b, NULL);
    return 0;
}
