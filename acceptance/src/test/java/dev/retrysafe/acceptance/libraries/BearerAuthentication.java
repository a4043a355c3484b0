package dev.retrysafe.acceptance.libraries;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The application's own authentication, the first filter: the API key of an
 * {@code Authorization: Bearer} header to the account it belongs to, kept on the request for the
 * filters after it; {@code 401} without a known key. Keys are looked up by their SHA-256, so the
 * lookup's timing tells nothing about a key. This class is threadsafe.
 */
public final class BearerAuthentication implements Filter {

    private static final String ACCOUNT_ATTRIBUTE = "example.account";
    private static final String BEARER = "Bearer ";

    private final Map<String, String> accountsByKeyHash;

    /** Accounts by API key, e.g. read from your accounts table. */
    public BearerAuthentication(Map<String, String> accountsByKey) {
        this.accountsByKeyHash = accountsByKey.entrySet().stream()
                .collect(Collectors.toUnmodifiableMap(entry -> sha256(entry.getKey()), Map.Entry::getValue));
    }

    /** The account {@code request} authenticated as, or {@code null} before this filter ran. */
    public static String account(HttpServletRequest request) {
        return (String) request.getAttribute(ACCOUNT_ATTRIBUTE);
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String header = ((HttpServletRequest) request).getHeader("Authorization");
        String account = header != null && header.startsWith(BEARER)
                ? accountsByKeyHash.get(sha256(header.substring(BEARER.length())))
                : null;
        if (account == null) {
            HttpServletResponse answer = (HttpServletResponse) response;
            answer.setStatus(401);
            answer.setHeader("WWW-Authenticate", "Bearer");
            answer.setContentType("application/problem+json");
            answer.getOutputStream()
                    .write("{\"title\":\"Unauthorized\",\"status\":401}".getBytes(StandardCharsets.UTF_8));
            return;
        }
        request.setAttribute(ACCOUNT_ATTRIBUTE, account);
        chain.doFilter(request, response);
    }

    private static String sha256(String key) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(digest.digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
