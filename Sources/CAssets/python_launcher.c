// The Python functions launcher, embedded from Sources/EmulatorFunctions/Python/launcher/.
#include "cassets.h"
#include "embed_support.h"

static const unsigned char launcher_py[] = {
#embed "../EmulatorFunctions/Python/launcher/launcher.py"
};

cassets_file cassets_python_launcher(void) {
    return (cassets_file){ "launcher.py", launcher_py, sizeof launcher_py };
}
