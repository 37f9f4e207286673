#include <stdlib.h>

#include "config.h"
#include "report.h"

static int by_count(const void *a, const void *b)
{
    const struct entry *x = *(struct entry *const *)a;
    const struct entry *y = *(struct entry *const *)b;
    return (y->count > x->count) - (y->count < x->count);
}

void report_print(FILE *out, const struct table *t)
{
    struct entry **all = malloc((t->words + 1) * sizeof *all);
    size_t n = table_entries(t, all, t->words);
    qsort(all, n, sizeof *all, by_count);
    for (size_t i = 0; i < n && i < REPORT_TOP; i++)
        fprintf(out, "%10s %ld\n", all[i]->word, all[i]->count);
    if (t->numbers)
        fprintf(out, "mean of numbers: %.2f\n", (double)t->numbers_sum / t->numbers);
    fprintf(out, "distinct words: %zu\n", t->words);
    free(all);
}
