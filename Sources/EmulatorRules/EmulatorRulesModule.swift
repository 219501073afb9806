/// Marker for the EmulatorRules module (its contents arrive with its issue).
enum EmulatorRulesModule {}
