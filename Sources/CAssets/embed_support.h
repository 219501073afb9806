#ifndef EMULATOR_CASSETS_EMBED_SUPPORT_H
#define EMULATOR_CASSETS_EMBED_SUPPORT_H
// Private to CAssets: what its .c files need to use `#embed`.
#if !defined(__has_embed)
#error "CAssets needs a C compiler with #embed (C23): clang 19 or later, or GCC 15 or later (docs/architecture.md, \"Assets\")"
#endif
#if defined(__clang__)
// SwiftPM compiles C targets as C17 (gnu17), where clang accepts C23's #embed as an extension.
#pragma clang diagnostic ignored "-Wc23-extensions"
#endif
#endif
