/* core/wire.c: every message type has one payload size, and the reader refuses any other before it
 * reads a byte of the payload, so the parent never copies a short message into a full struct; a
 * write to a parent that is gone fails with EPIPE instead of killing the worker without a word. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "klab_test.h"
#include "process/wire.h"

static void test_each_type_has_its_struct_size(void **state)
{
    (void)state;
    assert_int_equal(wire_payload_size(WIRE_HELLO), sizeof(int));
    assert_int_equal(wire_payload_size(WIRE_PLUGIN), sizeof(wire_plugin));
    assert_int_equal(wire_payload_size(WIRE_REFUSED), sizeof(wire_text));
    assert_int_equal(wire_payload_size(WIRE_DEVICE), sizeof(wire_device));
    assert_int_equal(wire_payload_size(WIRE_UNIT), sizeof(wire_unit));
    assert_int_equal(wire_payload_size(WIRE_PHASE), sizeof(wire_text));
    assert_int_equal(wire_payload_size(WIRE_ROW), sizeof(klab_row));
    assert_int_equal(wire_payload_size(WIRE_NOTE), sizeof(wire_text));
    assert_int_equal(wire_payload_size(WIRE_FATAL), sizeof(wire_text));
    assert_int_equal(wire_payload_size(WIRE_SAMPLES), -2); /* variable: checked by wire_samples_parse */
    assert_int_equal(wire_payload_size(WIRE_DONE), sizeof(int));
    assert_int_equal(wire_payload_size(WIRE_LOST), 0);
    assert_int_equal(wire_payload_size(0), -1);
    assert_int_equal(wire_payload_size(WIRE_SAMPLES + 1), -1);
    assert_int_equal(wire_payload_size(60000), -1);
    assert_string_equal(wire_type_name(WIRE_ROW), "ROW");
    assert_string_equal(wire_type_name(WIRE_LOST), "LOST");
    assert_null(wire_type_name(0));
}

static void test_check_names_what_is_wrong(void **state)
{
    (void)state;
    char err[200], want[200];
    wire_header h = {WIRE_MAGIC, WIRE_VERSION, WIRE_ROW, sizeof(klab_row)};
    assert_int_equal(wire_check(&h, err, sizeof err), 0);

    h.length = 12;
    assert_int_equal(wire_check(&h, err, sizeof err), -1);
    snprintf(want, sizeof want, "sent a ROW of 12 bytes, expected %zu", sizeof(klab_row));
    assert_string_equal(err, want);

    h.length = sizeof(klab_row) + 1; /* longer is as wrong as shorter */
    assert_int_equal(wire_check(&h, err, sizeof err), -1);

    wire_header lost = {WIRE_MAGIC, WIRE_VERSION, WIRE_LOST, 4};
    assert_int_equal(wire_check(&lost, err, sizeof err), -1);
    assert_string_equal(err, "sent a LOST of 4 bytes, expected 0");
    lost.length = 0;
    assert_int_equal(wire_check(&lost, err, sizeof err), 0);

    wire_header odd = {WIRE_MAGIC, WIRE_VERSION, 99, 0};
    assert_int_equal(wire_check(&odd, err, sizeof err), -1);
    assert_string_equal(err, "sent a message of unknown type 99");

    wire_header old = {WIRE_MAGIC, 1, WIRE_DONE, sizeof(int)};
    assert_int_equal(wire_check(&old, err, sizeof err), -1);
    snprintf(want, sizeof want, "speaks protocol version 1, this klab %d", WIRE_VERSION);
    assert_string_equal(err, want);

    wire_header junk = {0x12345678u, WIRE_VERSION, WIRE_DONE, sizeof(int)};
    assert_int_equal(wire_check(&junk, err, sizeof err), -1);
    assert_string_equal(err, "sent something that is not a klab message (magic 0x12345678)");
}

/* A message through a real pipe; the reader's buffer must stay untouched when it is refused. */
static void test_recv_refuses_a_short_row_unread(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    static unsigned char buf[16384];
    char err[200] = "";
    wire_header h;

    wire_text note;
    memset(&note, 0, sizeof note);
    snprintf(note.text, sizeof note.text, "hello");
    assert_int_equal(wire_send(fds[1], WIRE_NOTE, &note, sizeof note), 0);
    assert_int_equal(wire_recv(fds[0], &h, buf, sizeof buf, err, sizeof err), 1);
    assert_int_equal(h.type, WIRE_NOTE);
    assert_string_equal(((wire_text *)buf)->text, "hello");

    unsigned char twelve[12];
    memset(twelve, 0x55, sizeof twelve);
    memset(buf, 0xAA, sizeof buf);
    assert_int_equal(wire_send(fds[1], WIRE_ROW, twelve, sizeof twelve), 0);
    assert_int_equal(wire_recv(fds[0], &h, buf, sizeof buf, err, sizeof err), -1);
    char want[200];
    snprintf(want, sizeof want, "sent a ROW of 12 bytes, expected %zu", sizeof(klab_row));
    assert_string_equal(err, want);
    for (size_t i = 0; i < sizeof buf; i++)
        if (buf[i] != 0xAA)
            fail_msg("byte %zu of the reader's buffer was written", i);
    close(fds[1]);
    close(fds[0]);
}

static void test_recv_end_and_broken_stream(void **state)
{
    (void)state;
    static unsigned char buf[16384];
    char err[200] = "";
    wire_header h;
    int fds[2];

    /* a clean end between messages */
    assert_int_equal(pipe(fds), 0);
    close(fds[1]);
    assert_int_equal(wire_recv(fds[0], &h, buf, sizeof buf, err, sizeof err), 0);
    close(fds[0]);

    /* the writer died inside a message */
    assert_int_equal(pipe(fds), 0);
    wire_header half = {WIRE_MAGIC, WIRE_VERSION, WIRE_DONE, sizeof(int)};
    assert_int_equal(write(fds[1], &half, sizeof half), (ssize_t)sizeof half);
    close(fds[1]);
    assert_int_equal(wire_recv(fds[0], &h, buf, sizeof buf, err, sizeof err), -1);
    assert_string_equal(err, "ended in the middle of a DONE");
    close(fds[0]);

    /* a reader with less room than the type needs refuses it rather than overflowing */
    assert_int_equal(pipe(fds), 0);
    wire_text t;
    memset(&t, 0, sizeof t);
    assert_int_equal(wire_send(fds[1], WIRE_NOTE, &t, sizeof t), 0);
    assert_int_equal(wire_recv(fds[0], &h, buf, 100, err, sizeof err), -1);
    char want[200];
    snprintf(want, sizeof want, "sent a NOTE of %zu bytes, more than the reader's 100", sizeof(wire_text));
    assert_string_equal(err, want);
    close(fds[1]);
    close(fds[0]);
}

static void test_send_to_a_gone_reader_is_epipe(void **state)
{
    (void)state;
    void (*old)(int) = signal(SIGPIPE, SIG_IGN); /* as in a worker */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    close(fds[0]);
    int done = 0;
    errno = 0;
    assert_int_equal(wire_send(fds[1], WIRE_DONE, &done, sizeof done), -1);
    assert_int_equal(errno, EPIPE);
    close(fds[1]);
    signal(SIGPIPE, old);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_type_has_its_struct_size),
        cmocka_unit_test(test_check_names_what_is_wrong),
        cmocka_unit_test(test_recv_refuses_a_short_row_unread),
        cmocka_unit_test(test_recv_end_and_broken_stream),
        cmocka_unit_test(test_send_to_a_gone_reader_is_epipe),
    };
    KLAB_RUN_TESTS(tests);
}
