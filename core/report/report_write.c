#include "report/report_write.h"

#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>

#include "evidence/csv_sink.h"
#include "report/report_html.h"
#include "report/report_md.h"

typedef struct html_job {
    const report *r;
    const char *path;
    int rc;
    char err[1200];
} html_job;

static void *write_html(void *arg)
{
    html_job *j = arg;
    j->rc = report_html_write(j->r, j->path, j->err, sizeof j->err);
    return NULL;
}

/* 1 when path is a folder, made if need be (make_dirs passes over a file of that name) */
static int folder(const char *path)
{
    struct stat st;
    return make_dirs(path) == 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int report_write_all(const report *r, const char *out_dir, const char *html, char *err, size_t errlen)
{
    /* over a million-row run each is seconds of formatting: the page goes on a thread of its own */
    html_job j = {r, html, 0, ""};
    pthread_t th;
    /* the folders first, as the Markdown's writer makes them: where one cannot be made, it fails
       before any page is written and the page is not written either, one after the other as ever */
    char dir[4400], plugins[4400];
    snprintf(dir, sizeof dir, "%s/experiments", out_dir);
    snprintf(plugins, sizeof plugins, "%s/plugins", out_dir);
    int threaded = folder(dir) && (!r->nplugins || folder(plugins)) && pthread_create(&th, NULL, write_html, &j) == 0;
    int md = report_md_write(r, out_dir, err, errlen);
    if (threaded)
        pthread_join(th, NULL);
    else if (md == 0)
        write_html(&j);
    if (md != 0)
        return -1;
    if (j.rc != 0) {
        snprintf(err, errlen, "%s", j.err);
        return -1;
    }
    return 0;
}
