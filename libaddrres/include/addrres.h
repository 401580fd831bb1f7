/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Until 0.3 the library's header was installed as <addrres.h>; it is
 * <addrres/addrres.h> now, beside <addrres/procmap_query.h>.  This one
 * stays for the programs that include the old name.
 */
#include <addrres/addrres.h>
