#ifndef EMULATOR_CZLIB_SHIM_H
#define EMULATOR_CZLIB_SHIM_H
#include <zlib.h>
#endif
