/* Sizes and limits of wordfreq. */
#ifndef WORDFREQ_CONFIG_H
#define WORDFREQ_CONFIG_H

#define BUF_INITIAL 16   /* bytes a token buffer starts with */
#define TABLE_SLOTS 64   /* buckets of the word table */
#define REPORT_TOP 5     /* words the report lists */
#define MAX_LINE 4096

#endif
