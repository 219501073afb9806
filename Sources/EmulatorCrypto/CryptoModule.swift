/// Placeholder so the module builds; the Crypto issue fills this module.
enum CryptoModule {}
