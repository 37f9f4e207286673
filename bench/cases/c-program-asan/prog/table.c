#include <stdlib.h>
#include <string.h>

#include "table.h"

static unsigned long hash(const char *s)
{
    unsigned long h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

void table_init(struct table *t)
{
    memset(t, 0, sizeof *t);
}

void table_add(struct table *t, const char *word)
{
    struct entry **slot = &t->slots[hash(word) % TABLE_SLOTS];
    for (struct entry *e = *slot; e; e = e->next) {
        if (strcmp(e->word, word) == 0) {
            e->count++;
            return;
        }
    }
    struct entry *e = malloc(sizeof *e);
    e->word = strdup(word);
    e->count = 1;
    e->next = *slot;
    *slot = e;
    t->words++;
}

void table_add_number(struct table *t, long n)
{
    t->numbers_sum += n;
    t->numbers++;
}

size_t table_entries(const struct table *t, struct entry **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < TABLE_SLOTS; i++)
        for (struct entry *e = t->slots[i]; e && n < max; e = e->next)
            out[n++] = e;
    return n;
}

void table_free(struct table *t)
{
    for (size_t i = 0; i < TABLE_SLOTS; i++) {
        struct entry *e = t->slots[i];
        while (e) {
            struct entry *next = e->next;
            free(e->word);
            free(e);
            e = next;
        }
    }
}
