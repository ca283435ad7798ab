/**
 * Services one shipped plugin offers another, outside the contract: a plugin contributes an object
 * implementing one of these interfaces through {@code PlatformPlugin.services}, and another plugin
 * (or a platform application) finds it with {@code PlatformContext.service(Type.class)}. Each plugin
 * bundles its own copy of this package, so the host matches the interface by its name and carries a
 * call across as JSON where the two copies' classes differ; keep the signatures to JDK, SPI and
 * Jackson-mappable record types.
 */
package dev.caduceus.support.services;
