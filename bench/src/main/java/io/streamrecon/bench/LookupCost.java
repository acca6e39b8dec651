package io.streamrecon.bench;
// TEMP stub until DELTA lands
record LookupCost(long pointers, long files, double batchedMillis, double perPointerMillis, long perPointerMeasured, double lookupMillis, long lookupFileOpens, long lookupPayloads) {}
