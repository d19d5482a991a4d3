# Sourced by the Spark bench scripts: the JVM flags Spark 3.5 needs on Java 17 (the pom's
# spark.jvm.flags) and a classpath standing in for a Spark distribution. Spark is `provided` in
# structlr-spark.jar (spark-submit brings it); without a Spark distribution the Maven classpath of
# the -Pspark build stands in for it.
export OMP_NUM_THREADS=1
FLAGS="--add-modules=jdk.incubator.vector"
for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util java.util.concurrent \
         java.util.concurrent.atomic sun.nio.ch sun.nio.cs sun.security.action sun.util.calendar; do
  FLAGS="$FLAGS --add-opens=java.base/$p=ALL-UNNAMED"
done
mvn -B -q -o -Pspark dependency:build-classpath -Dmdep.outputFile=target/spark/classpath.txt >/dev/null
# STRUCTLR_JAR: another copy of the jar (so that a rebuild cannot replace it under a running bench)
CP="${STRUCTLR_JAR:-$PWD/target/structlr-spark.jar}:$(cat target/spark/classpath.txt)"
