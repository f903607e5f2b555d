/**
 * JUnit 5 support: {@link dev.ax.embedded.junit.AxInfraExtension} hands each test an {@link
 * dev.ax.embedded.junit.AxTestEnv} (its own database and topic prefix) on the JVM's shared servers.
 * Needs junit-jupiter-api on the classpath, which ax-embedded declares optional.
 */
package dev.ax.embedded.junit;
