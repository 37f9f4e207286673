/* A tiny key-value table whose lookup dereferences a null bucket for one key: a run-time crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    char key[32];
    int value;
    struct entry *next;
};

struct table {
    struct entry **buckets;
    unsigned nbuckets;
    unsigned count;
};

static unsigned hash(const char *s) {
    unsigned h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

static struct table *table_new(unsigned nbuckets) {
    struct table *t = malloc(sizeof *t);
    t->buckets = calloc(nbuckets, sizeof *t->buckets);
    t->nbuckets = nbuckets;
    t->count = 0;
    return t;
}

static void table_put(struct table *t, const char *key, int value) {
    unsigned b = hash(key) % t->nbuckets;
    struct entry *e = malloc(sizeof *e);
    strncpy(e->key, key, sizeof e->key - 1);
    e->key[sizeof e->key - 1] = '\0';
    e->value = value;
    e->next = t->buckets[b];
    t->buckets[b] = e;
    t->count++;
}

static int table_get(struct table *t, const char *key) {
    unsigned b = hash(key) % t->nbuckets;
    struct entry *e = t->buckets[b];
    /* Bug: assumes the key is present, walks off the end of the chain. */
    while (strcmp(e->key, key) != 0)
        e = e->next;
    return e->value;
}

static void table_free(struct table *t) {
    for (unsigned i = 0; i < t->nbuckets; i++) {
        struct entry *e = t->buckets[i];
        while (e) {
            struct entry *next = e->next;
            free(e);
            e = next;
        }
    }
    free(t->buckets);
    free(t);
}

int main(void) {
    struct table *t = table_new(16);
    const char *names[] = {"alpha", "beta", "gamma", "delta", "epsilon"};
    for (int i = 0; i < 5; i++)
        table_put(t, names[i], i * 10);
    int sum = 0;
    for (int i = 0; i < 5; i++)
        sum += table_get(t, names[i]);
    printf("sum=%d count=%u\n", sum, t->count);
    printf("zeta=%d\n", table_get(t, "zeta"));
    table_free(t);
    return 0;
}
