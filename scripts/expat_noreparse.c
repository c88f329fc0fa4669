/* LD_PRELOAD shim that switches off expat's "reparse deferral" in every parser it creates.
 *
 * Why: Debian bookworm's libexpat1 2.5.0-1+deb12u2 and later backport the CVE-2023-52425 fix
 * ("reparse deferral"). ParaView 5.11's VTK XML readers feed appended raw binary data through expat
 * in a way that breaks with deferral on: every .vtu/.vtp/.pvtp written by the default (appended,
 * raw) writers fails to load with "vtkXMLDataParser: Error parsing XML ... not well-formed (invalid
 * token)". Upstream VTK later fixed this by calling XML_SetReparseDeferralEnabled(p, XML_FALSE);
 * this shim does the same from outside (shared/deps.md §7).
 *
 * Build (scripts/install-deps.sh does this when ParaView is installed):
 *   gcc -O2 -shared -fPIC -o libexpat_noreparse.so expat_noreparse.c -Wl,--no-as-needed -lexpat -ldl
 * Use:
 *   LD_PRELOAD=/opt/meniscus/lib/libexpat_noreparse.so pvpython script.py
 *   mpirun -x LD_PRELOAD=/opt/meniscus/lib/libexpat_noreparse.so -n 2 ./app ...
 *
 * The shim is linked against libexpat so that libexpat sits in the global symbol scope even when
 * VTK is loaded later with dlopen(RTLD_LOCAL) (Python extension modules): RTLD_NEXT then finds the
 * real functions. XML_SetReparseDeferralEnabled is looked up at run time, so the shim also builds
 * and loads against an expat without deferral (2.5.0-1+deb12u1 and older), where it does nothing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <expat.h>
#include <stddef.h>

typedef XML_Bool (*set_deferral_fn)(XML_Parser, XML_Bool);
typedef XML_Parser (*create_fn)(const XML_Char *);
typedef XML_Parser (*create_ns_fn)(const XML_Char *, XML_Char);
typedef XML_Parser (*create_mm_fn)(const XML_Char *, const XML_Memory_Handling_Suite *,
                                   const XML_Char *);
typedef XML_Bool (*reset_fn)(XML_Parser, const XML_Char *);

/* Resolves a symbol of the real libexpat (the next definition after this library). */
static void *next_symbol(const char *name) { return dlsym(RTLD_NEXT, name); }

static void disable_deferral(XML_Parser parser) {
  static int looked_up = 0;
  static set_deferral_fn set_deferral = NULL;
  if (!looked_up) {
    set_deferral = (set_deferral_fn)next_symbol("XML_SetReparseDeferralEnabled");
    looked_up = 1;
  }
  if (parser != NULL && set_deferral != NULL) set_deferral(parser, XML_FALSE);
}

XML_Parser XML_ParserCreate(const XML_Char *encoding) {
  static create_fn real = NULL;
  if (real == NULL) real = (create_fn)next_symbol("XML_ParserCreate");
  if (real == NULL) return NULL;
  XML_Parser parser = real(encoding);
  disable_deferral(parser);
  return parser;
}

XML_Parser XML_ParserCreateNS(const XML_Char *encoding, XML_Char separator) {
  static create_ns_fn real = NULL;
  if (real == NULL) real = (create_ns_fn)next_symbol("XML_ParserCreateNS");
  if (real == NULL) return NULL;
  XML_Parser parser = real(encoding, separator);
  disable_deferral(parser);
  return parser;
}

XML_Parser XML_ParserCreate_MM(const XML_Char *encoding, const XML_Memory_Handling_Suite *memsuite,
                               const XML_Char *separator) {
  static create_mm_fn real = NULL;
  if (real == NULL) real = (create_mm_fn)next_symbol("XML_ParserCreate_MM");
  if (real == NULL) return NULL;
  XML_Parser parser = real(encoding, memsuite, separator);
  disable_deferral(parser);
  return parser;
}

/* XML_ParserReset restores every setting to its default, deferral included. */
XML_Bool XML_ParserReset(XML_Parser parser, const XML_Char *encoding) {
  static reset_fn real = NULL;
  if (real == NULL) real = (reset_fn)next_symbol("XML_ParserReset");
  if (real == NULL) return XML_FALSE;
  XML_Bool ok = real(parser, encoding);
  if (ok) disable_deferral(parser);
  return ok;
}
