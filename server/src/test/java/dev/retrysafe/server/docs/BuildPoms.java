package dev.retrysafe.server.docs;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.jspecify.annotations.Nullable;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

/**
 * The build as its POMs declare it, for tests that keep the BOM and {@code docs/libraries.md}
 * true to it: the root's version and modules, each module's artifact, and which modules are
 * libraries an application may depend on.
 *
 * <p>A module is a library unless it is one of {@link #NOT_LIBRARIES} or lives under
 * {@code examples/} (an application). A library is internal when its {@code module-info.java}
 * exports nothing to everyone (only {@code exports ... to} the Retrysafe modules): an application
 * gets it with the modules that need it and never names it.
 */
public record BuildPoms(String groupId, String version, List<Module> modules) {

    /** Modules of the build that are not libraries, each for its reason. */
    public static final Set<String> NOT_LIBRARIES = Set.of(
            "bom", // the BOM itself
            "testkit", // test fixtures of our own tests
            "server", // the runnable server, not a dependency
            "bench", // benchmarks, never shipped
            "acceptance"); // tests of the packaged server

    private static final Pattern UNQUALIFIED_EXPORT = Pattern.compile("(?m)^\\s*exports\\s+[\\w.]+\\s*;");

    /**
     * One module of the root POM.
     *
     * @param path the module's folder, as the root POM names it
     * @param artifactId its artifact
     * @param library whether applications may depend on it (see {@link BuildPoms})
     * @param internal whether it is a library that exports nothing to everyone
     */
    public record Module(String path, String artifactId, boolean library, boolean internal) {}

    /** A dependency as a POM or a document declares it; the version is the text written, or {@code null}. */
    public record Dependency(
            String groupId, String artifactId, @Nullable String version) {}

    /** Reads the root POM of the repository at {@code root} and the POM of each of its modules. */
    public static BuildPoms read(Path root) throws IOException {
        Element project = parse(Files.readString(root.resolve("pom.xml")));
        List<Module> modules = new ArrayList<>();
        Element moduleList = child(project, "modules");
        for (Element module : moduleList == null ? List.<Element>of() : children(moduleList, "module")) {
            String path = module.getTextContent().trim();
            Path folder = root.resolve(path);
            Element pom = parse(Files.readString(folder.resolve("pom.xml")));
            boolean library = !NOT_LIBRARIES.contains(path) && !path.startsWith("examples/");
            Path moduleInfo = folder.resolve("src/main/java/module-info.java");
            boolean internal = library
                    && Files.exists(moduleInfo)
                    && !UNQUALIFIED_EXPORT.matcher(Files.readString(moduleInfo)).find();
            modules.add(new Module(path, text(pom, "artifactId"), library, internal));
        }
        return new BuildPoms(text(project, "groupId"), text(project, "version"), List.copyOf(modules));
    }

    /** The artifacts of every library module, internal ones included, in the root POM's order. */
    public Set<String> libraryArtifacts() {
        Set<String> artifacts = new LinkedHashSet<>();
        modules.stream().filter(Module::library).forEach(m -> artifacts.add(m.artifactId()));
        return artifacts;
    }

    /** The artifacts of the libraries an application names itself (not internal). */
    public Set<String> publicLibraryArtifacts() {
        Set<String> artifacts = new LinkedHashSet<>();
        modules.stream().filter(m -> m.library() && !m.internal()).forEach(m -> artifacts.add(m.artifactId()));
        return artifacts;
    }

    /** The {@code <dependency>} elements anywhere in {@code xml}, a POM or a fragment of one. */
    public static List<Dependency> dependencies(String xml) {
        Element root = parse("<fragment>" + xml.strip().replaceFirst("^<\\?xml[^>]*\\?>", "") + "</fragment>");
        List<Dependency> found = new ArrayList<>();
        NodeList nodes = root.getElementsByTagName("dependency");
        for (int i = 0; i < nodes.getLength(); i++) {
            Element dependency = (Element) nodes.item(i);
            Element version = child(dependency, "version");
            found.add(new Dependency(
                    text(dependency, "groupId"),
                    text(dependency, "artifactId"),
                    version == null ? null : version.getTextContent().trim()));
        }
        return found;
    }

    /** A plugin of a POM's {@code <build><plugins>}; the version is the text written, or {@code null}. */
    public record Plugin(String artifactId, @Nullable String version) {}

    /** The plugins of {@code project}'s {@code <build><plugins>} (not its plugin management). */
    public static List<Plugin> buildPlugins(Element project) {
        Element build = child(project, "build");
        Element plugins = build == null ? null : child(build, "plugins");
        List<Plugin> found = new ArrayList<>();
        for (Element plugin : plugins == null ? List.<Element>of() : children(plugins, "plugin")) {
            Element version = child(plugin, "version");
            found.add(new Plugin(
                    text(plugin, "artifactId"),
                    version == null ? null : version.getTextContent().trim()));
        }
        return found;
    }

    /** The text of {@code parent}'s child element {@code name}. */
    public static String text(Element parent, String name) {
        Element child = child(parent, name);
        if (child == null) {
            throw new AssertionError("<" + parent.getTagName() + "> has no <" + name + ">");
        }
        return child.getTextContent().trim();
    }

    /** {@code parent}'s first child element named {@code name}, or {@code null}. */
    public static @Nullable Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.get(0);
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                found.add(element);
            }
        }
        return found;
    }

    /** The root element of {@code xml}, parsed without DTDs or external entities. */
    public static Element parse(String xml) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setExpandEntityReferences(false);
            return factory.newDocumentBuilder()
                    .parse(new InputSource(new StringReader(xml)))
                    .getDocumentElement();
        } catch (ParserConfigurationException | SAXException | IOException e) {
            throw new AssertionError("not well-formed XML: " + e.getMessage() + "\n" + xml, e);
        }
    }
}
