/*===- KillOnUnlink.c - SIGKILL the process at a chosen file removal -----===*
 *
 * An LD_PRELOAD shim for fault tests: the first unlink/unlinkat/remove of a
 * path containing $DISTC_KILL_ON_UNLINK kills the calling process with
 * SIGKILL, after the removal happened, exactly as a power cut or the OOM
 * killer would in the middle of deleting a directory. No test hook lives
 * in the code under test.
 *
 *===----------------------------------------------------------------------===*/
#ifndef _GNU_SOURCE // some compilers define it for C already
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void killIfChosen(const char *path) {
  const char *pattern = getenv("DISTC_KILL_ON_UNLINK");
  if (pattern && *pattern && path && strstr(path, pattern)) {
    static const char note[] = "kill-on-unlink: SIGKILL after removing a chosen path\n";
    (void)!write(2, note, sizeof note - 1);
    kill(getpid(), SIGKILL);
  }
}

int unlink(const char *path) {
  int (*real)(const char *) = (int (*)(const char *))dlsym(RTLD_NEXT, "unlink");
  int rc = real(path);
  killIfChosen(path);
  return rc;
}

int unlinkat(int dirfd, const char *path, int flags) {
  int (*real)(int, const char *, int) = (int (*)(int, const char *, int))dlsym(RTLD_NEXT, "unlinkat");
  int rc = real(dirfd, path, flags);
  killIfChosen(path);
  return rc;
}

int remove(const char *path) {
  int (*real)(const char *) = (int (*)(const char *))dlsym(RTLD_NEXT, "remove");
  int rc = real(path);
  killIfChosen(path);
  return rc;
}
