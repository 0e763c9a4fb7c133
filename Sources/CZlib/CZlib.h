#ifndef BADGECTL_CZLIB_H
#define BADGECTL_CZLIB_H
#include <zlib.h>
#endif
