/* Splitting a line into lowercase words and numbers. */
#ifndef WORDFREQ_LEXER_H
#define WORDFREQ_LEXER_H

#include "buf.h"

enum token_kind { TOKEN_END, TOKEN_WORD, TOKEN_NUMBER };

struct lexer {
    const char *p;
    struct buf text;
};

void lexer_init(struct lexer *lx, const char *line);
enum token_kind lexer_next(struct lexer *lx);
const char *lexer_text(struct lexer *lx);
void lexer_free(struct lexer *lx);

#endif
