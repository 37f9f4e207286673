/* Counting words in a chained hash table. */
#ifndef WORDFREQ_TABLE_H
#define WORDFREQ_TABLE_H

#include <stddef.h>

#include "config.h"

struct entry {
    char *word;
    long count;
    struct entry *next;
};

struct table {
    struct entry *slots[TABLE_SLOTS];
    size_t words;
    long numbers_sum;
    long numbers;
};

void table_init(struct table *t);
void table_add(struct table *t, const char *word);
void table_add_number(struct table *t, long n);
size_t table_entries(const struct table *t, struct entry **out, size_t max);
void table_free(struct table *t);

#endif
