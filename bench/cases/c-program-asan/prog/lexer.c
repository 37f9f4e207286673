#include <ctype.h>

#include "lexer.h"

void lexer_init(struct lexer *lx, const char *line)
{
    lx->p = line;
    buf_init(&lx->text);
}

enum token_kind lexer_next(struct lexer *lx)
{
    buf_clear(&lx->text);
    while (*lx->p && !isalnum((unsigned char)*lx->p))
        lx->p++;
    if (!*lx->p)
        return TOKEN_END;
    if (isdigit((unsigned char)*lx->p)) {
        while (isdigit((unsigned char)*lx->p))
            buf_push(&lx->text, *lx->p++);
        return TOKEN_NUMBER;
    }
    while (isalnum((unsigned char)*lx->p) || *lx->p == '\'')
        buf_push(&lx->text, (char)tolower((unsigned char)*lx->p++));
    return TOKEN_WORD;
}

const char *lexer_text(struct lexer *lx)
{
    return buf_cstr(&lx->text);
}

void lexer_free(struct lexer *lx)
{
    buf_free(&lx->text);
}
