/* The report: the most frequent words and the numbers' mean. */
#ifndef WORDFREQ_REPORT_H
#define WORDFREQ_REPORT_H

#include <stdio.h>

#include "table.h"

void report_print(FILE *out, const struct table *t);

#endif
