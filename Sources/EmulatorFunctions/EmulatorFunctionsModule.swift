/// Marker for the EmulatorFunctions module (its contents arrive with its issue).
enum EmulatorFunctionsModule {}
