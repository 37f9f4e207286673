#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_field(const unsigned char *buf, size_t len, size_t at) {
    (void)len;
    return buf[at];
}

static int parse_record(const unsigned char *data, size_t n) {
    unsigned char *copy = malloc(8);
    memcpy(copy, data, n < 8 ? n : 8);
    int v = read_field(copy, 8, 8 + data[1] % 16);
    free(copy);
    return v;
}

struct header { int kind; int size; };

static int parse_header(const struct header *h, size_t offset) {
    const int *field = (const int *)((const char *)h + offset);
    return *field;
}

static void fill(unsigned char *out, size_t n, unsigned char with) {
    for (size_t i = 0; i <= n; i++) out[i] = with;
}

int main(int argc, char **argv) {
    FILE *f = fopen(argv[1], "rb");
    unsigned char data[64] = {0};
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    switch (data[0]) {
    case 'H': return parse_record(data, n);
    case 'N': return parse_header(NULL, data[1] % 64);
    case 'W': { unsigned char *b = malloc(4 + data[1] % 8); fill(b, 4 + data[1] % 8, data[2]); free(b); return 0; }
    default: return 0;
    }
}
