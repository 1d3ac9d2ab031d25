#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUFFER_MIN 16

/* A growable byte buffer. */
struct buffer {
    char *data;
    size_t len;
    size_t cap;
};

typedef enum { OK, NO_MEMORY } status_t;

/* Makes sure there is room for `extra` more bytes. */
static status_t buffer_reserve(struct buffer *b, size_t extra) {
    size_t want = b->len + extra;
    if (want <= b->cap) {
        return OK;
    }
    size_t cap = b->cap ? b->cap : BUFFER_MIN;
    while (cap < want) {
        cap *= 2;
    }
    char *data = realloc(b->data, cap);
    if (data == NULL) {
        return NO_MEMORY;
    }
    b->data = data;
    b->cap = cap;
    return OK;
}

status_t buffer_append(struct buffer *b, const char *s) {
    size_t n = strlen(s);
    if (buffer_reserve(b, n) != OK) {
        return NO_MEMORY;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return OK;
}
