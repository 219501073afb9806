/// Marker for the EmulatorStore module (its contents arrive with its issue).
enum EmulatorStoreModule {}
