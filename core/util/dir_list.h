/* A folder's entries by name, sorted: the files with one ending (*.csv, *.exp.ini) or the subfolders.
 * Hidden names (a leading '.') are passed over. */
#ifndef KLAB_DIR_LIST_H
#define KLAB_DIR_LIST_H

/* The names (malloc'd, sorted) in *names: those ending in `suffix`, or with suffix NULL the
   subfolders. Returns the count, or -1 when the folder cannot be read (errno says why). */
int dir_list(const char *dir, const char *suffix, char ***names);

void dir_list_free(char **names, int n);

#endif
