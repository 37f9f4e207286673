/* A tiny record reader: records are TAG(4) LEN(1) DATA(LEN). Bugs on purpose, as a fuzz target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int handle(const unsigned char *tag, const unsigned char *d, int len) {
    if (memcmp(tag, "NAME", 4) == 0) {
        char *buf = malloc(16);
        memcpy(buf, d, len);            /* overflow when len > 16 */
        int r = buf[0];
        free(buf);
        return r;
    }
    if (memcmp(tag, "DIVI", 4) == 0 && len >= 1) {
        volatile int z = d[0] - 'x';
        return 100 / z;                 /* SIGFPE on 'x' */
    }
    if (memcmp(tag, "PTR!", 4) == 0 && len >= 1 && d[0] == 0) {
        volatile int *p = NULL;
        return *p;                      /* SEGV */
    }
    return 0;
}
int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    static unsigned char in[1 << 16];
    size_t n = fread(in, 1, sizeof in, f);
    fclose(f);
    size_t i = 0; int acc = 0;
    while (i + 5 <= n) {
        int len = in[i + 4];
        if (i + 5 + len > n) break;
        acc += handle(in + i, in + i + 5, len);
        i += 5 + len;
    }
    printf("%d\n", acc);
    return 0;
}
