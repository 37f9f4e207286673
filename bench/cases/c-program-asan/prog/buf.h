/* A growable byte buffer for the token being read. */
#ifndef WORDFREQ_BUF_H
#define WORDFREQ_BUF_H

#include <stddef.h>

struct buf {
    char *data;
    size_t len;
    size_t cap;
};

void buf_init(struct buf *b);
void buf_push(struct buf *b, char c);
void buf_clear(struct buf *b);
const char *buf_cstr(struct buf *b);
void buf_free(struct buf *b);

#endif
