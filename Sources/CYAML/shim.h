#ifndef REENCODE_CYAML_SHIM_H
#define REENCODE_CYAML_SHIM_H
#include <yaml.h>
#endif
