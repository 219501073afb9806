/// Marker for the EmulatorAuth module (its contents arrive with its issue).
enum EmulatorAuthModule {}
