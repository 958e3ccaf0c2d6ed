/* Where plugins and their INI files are found.
 *
 * Plugin folders, searched in this order (the first file of a name wins; later ones are reported as
 * shadowed):  each --plugin-path DIR;  each folder of KLAB_PLUGIN_PATH (':'-separated);  the build
 * tree's plugins/ beside the klab executable;  the install prefix's lib/klab/plugins.
 *
 * An experiment's INI, <name>.ini:  --ini-dir;  each folder of KLAB_INI_PATH;  the folder the plugin
 * was found in (an out-of-tree plugin ships its own);  ini/ beside the executable (the build tree);
 * the install prefix's share/klab/ini. */
#ifndef KLAB_DISCOVERY_H
#define KLAB_DISCOVERY_H

#include <stddef.h>

#define DISC_MAX_DIRS 32
#define DISC_MAX_PLUGINS 128

typedef struct found_plugin {
    char name[64];   /* the file's stem: rmsnorm for rmsnorm.so */
    char path[4096];
    char dir[4096];
    char shadows[4096]; /* a later file of the same name this one hides, if any */
} found_plugin;

typedef struct discovery {
    int ndirs;
    char dirs[DISC_MAX_DIRS][4096];
    int nini;
    int nini_user; /* ini_dirs[0..nini_user) come from --ini-dir and KLAB_INI_PATH */
    char ini_dirs[DISC_MAX_DIRS][4096];
    int nplugins;
    found_plugin plugins[DISC_MAX_PLUGINS];
} discovery;

/* Fills the folder lists from the options, the environment and the executable's location. */
void discovery_init(discovery *d, const char *const *plugin_paths, int npaths, const char *ini_dir);

/* Lists the *.so files of every folder (sorted by name within a folder). Missing folders are skipped. */
void discovery_scan(discovery *d);

const found_plugin *discovery_find(const discovery *d, const char *name);

/* Finds <plugin>.ini for a plugin; returns 0 and the path, or -1. */
int discovery_ini(const discovery *d, const char *plugin, char *path, size_t len);

/* The running executable (from /proc/self/exe): 0, or -1 and "" when it cannot be read. A child klab
   is started from it. */
int exe_path(char *buf, size_t len);

/* The folder holding the running executable (from /proc/self/exe). */
int exe_dir(char *buf, size_t len);

#endif
