/* A fuzz target with planted bugs, built with AddressSanitizer: a parser of a small binary
 * record format ("RECS" magic, then records of [type][length][payload]), the shape of many real
 * file formats. Bugs, each in its own function so their stacks differ:
 *   type 'N' whose payload starts with a control byte: a null pointer read (SEGV in read_name);
 *   type 'T' longer than its 40-byte table: a heap buffer overflow (read_table);
 *   type 'D' nested 5 or more deep (D records inside the payload): unbounded recursion, a stack
 *   overflow (nest);
 *   type 'X' with a zero divisor byte: abort() after an error message (scale).
 * Other inputs exit 0, and so do inputs that are not records at all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char *data;
static size_t size;

static int read_name(size_t at, size_t len) {
    const char *name = len && data[at] < 0x20 ? NULL : (const char *)data + at;
    return name[0];
}

static int read_table(size_t at, size_t len) {
    unsigned char *table = malloc(40);
    int sum = 0;
    for (size_t i = 0; i < len; i++) table[i] = data[at + i];
    for (size_t i = 0; i < len; i++) sum += table[i];
    free(table);
    return sum;
}

static int nest(size_t at, size_t end, int depth) {
    char frame[256];
    memset(frame, depth, sizeof frame);
    if (at + 2 <= end && data[at] == 'D') return nest(at + 2, end, depth + 1) + frame[depth % 256];
    return depth >= 5 ? nest(at, end, depth + 1) : frame[0];
}

static int scale(size_t at, size_t len) {
    if (len < 2) return 0;
    if (data[at + 1] == 0) {
        fprintf(stderr, "scale: zero divisor in record at %zu\n", at);
        abort();
    }
    return data[at] / data[at + 1];
}

static int parse(void) {
    if (size < 4 || memcmp(data, "RECS", 4) != 0) return 0;
    int total = 0;
    for (size_t at = 4; at + 2 <= size;) {
        unsigned char type = data[at], len = data[at + 1];
        size_t body = at + 2;
        size_t avail = size - body < len ? size - body : len;
        if (type == 'N') total += read_name(body, avail);
        else if (type == 'T') total += read_table(body, avail);
        else if (type == 'D') total += nest(body, body + avail, 1);
        else if (type == 'X') total += scale(body, avail);
        at = body + avail;
    }
    return total;
}

int main(int argc, char **argv) {
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : stdin;
    static unsigned char buffer[1 << 16];
    if (!f) return 0;
    size = fread(buffer, 1, sizeof buffer, f);
    unsigned char *heap = malloc(size + 1);
    memcpy(heap, buffer, size);
    data = heap;
    int total = parse();
    free(heap);
    return total == 123456789;
}
