#ifndef EMULATOR_CASSETS_H
#define EMULATOR_CASSETS_H
// Text files compiled into the binary with C23 `#embed`: the web UI's HTML, CSS, JavaScript and
// icon (Sources/Emulator/UI/assets/) and the Python functions launcher
// (Sources/EmulatorFunctions/Python/launcher/). They live as plain files so that editors, linters
// and `node --check` see them, and are embedded byte for byte at build time: no resource bundle,
// no Foundation, no build-tool plugin (docs/architecture.md, "Assets").
#include <stddef.h>

#pragma clang assume_nonnull begin

/// One embedded file: its name (NUL-terminated) and its bytes, exactly the file's (no NUL added).
typedef struct {
    const char *name;
    const unsigned char *bytes;
    size_t count;
} cassets_file;

/// The web UI's files, `*count` of them, named as in Sources/Emulator/UI/assets/ (`index.html` is
/// the app shell). Static data: valid for the life of the process.
const cassets_file *cassets_ui_files(size_t *count);

/// The Python launcher script, Sources/EmulatorFunctions/Python/launcher/launcher.py.
cassets_file cassets_python_launcher(void);

#pragma clang assume_nonnull end
#endif
