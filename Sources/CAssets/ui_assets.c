// The web UI's files, embedded from Sources/Emulator/UI/assets/. A new file there needs its
// array and a row in `files` below (UIAssetFilesTests fails while a file of the folder is missing).
#include "cassets.h"
#include "embed_support.h"

static const unsigned char index_html[] = {
#embed "../Emulator/UI/assets/index.html"
};
static const unsigned char favicon_svg[] = {
#embed "../Emulator/UI/assets/favicon.svg"
};
static const unsigned char app_css[] = {
#embed "../Emulator/UI/assets/app.css"
};
static const unsigned char core_js[] = {
#embed "../Emulator/UI/assets/core.js"
};
static const unsigned char widgets_js[] = {
#embed "../Emulator/UI/assets/widgets.js"
};
static const unsigned char values_js[] = {
#embed "../Emulator/UI/assets/values.js"
};
static const unsigned char overview_js[] = {
#embed "../Emulator/UI/assets/overview.js"
};
static const unsigned char auth_js[] = {
#embed "../Emulator/UI/assets/auth.js"
};
static const unsigned char firestore_js[] = {
#embed "../Emulator/UI/assets/firestore.js"
};
static const unsigned char storage_js[] = {
#embed "../Emulator/UI/assets/storage.js"
};
static const unsigned char pubsub_js[] = {
#embed "../Emulator/UI/assets/pubsub.js"
};
static const unsigned char requests_js[] = {
#embed "../Emulator/UI/assets/requests.js"
};
static const unsigned char functions_js[] = {
#embed "../Emulator/UI/assets/functions.js"
};
static const unsigned char control_js[] = {
#embed "../Emulator/UI/assets/control.js"
};

#define CASSETS_FILE(name, array) { name, array, sizeof array }

static const cassets_file files[] = {
    CASSETS_FILE("index.html", index_html),
    CASSETS_FILE("favicon.svg", favicon_svg),
    CASSETS_FILE("app.css", app_css),
    CASSETS_FILE("core.js", core_js),
    CASSETS_FILE("widgets.js", widgets_js),
    CASSETS_FILE("values.js", values_js),
    CASSETS_FILE("overview.js", overview_js),
    CASSETS_FILE("auth.js", auth_js),
    CASSETS_FILE("firestore.js", firestore_js),
    CASSETS_FILE("storage.js", storage_js),
    CASSETS_FILE("pubsub.js", pubsub_js),
    CASSETS_FILE("requests.js", requests_js),
    CASSETS_FILE("functions.js", functions_js),
    CASSETS_FILE("control.js", control_js),
};

const cassets_file *cassets_ui_files(size_t *count) {
    *count = sizeof files / sizeof files[0];
    return files;
}
