/* wordfreq: counts the words and numbers of a text file and reports the most frequent. */
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "lexer.h"
#include "report.h"
#include "table.h"

static void count_line(struct table *t, const char *line)
{
    struct lexer lx;
    enum token_kind kind;
    lexer_init(&lx, line);
    while ((kind = lexer_next(&lx)) != TOKEN_END) {
        const char *text = lexer_text(&lx);
        if (kind == TOKEN_NUMBER)
            table_add_number(t, strtol(text, NULL, 10));
        else
            table_add(t, text);
    }
    lexer_free(&lx);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE\n", argv[0]);
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        perror(argv[1]);
        return 1;
    }
    struct table t;
    char line[MAX_LINE];
    table_init(&t);
    while (fgets(line, sizeof line, in))
        count_line(&t, line);
    fclose(in);
    report_print(stdout, &t);
    table_free(&t);
    return 0;
}
